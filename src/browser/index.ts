/**
 * `taoloop/browser`: everything of the portable core (`taoloop`), plus a model that runs in the web page
 * itself: {@link browserModel}, a GGUF file run by llama.cpp compiled to WebAssembly through
 * `@wllama/wllama` (an optional peer dependency: `npm install @wllama/wllama@3.8.1`). Kept out of the core
 * entry, and imported only as the app passes it in (`BrowserModelOptions.wllama`) or at run time, so that
 * bundling `taoloop` or `taoloop/browser` never looks for wllama.
 *
 * @example
 * ```ts
 * import { browserModel, calculator, runAgent } from 'taoloop/browser';
 * const model = await browserModel({
 *   model: '/models/qwen2.5-0.5b-instruct-q4_k_m.gguf',
 *   wasmUrl: '/wllama.wasm',
 *   wllama: () => import('@wllama/wllama/esm/index.js'), // so that the app's bundler includes it
 * });
 * const result = await runAgent({ model, tools: [calculator], question: 'What is 20 * 12 * 7?' });
 * ```
 *
 * @module taoloop/browser
 */
export * from '../index.js';
export {
  type BrowserModel,
  type BrowserModelOptions,
  type BrowserModelProgress,
  browserModel,
  DEFAULT_BROWSER_CONTEXT_TOKENS,
  DEFAULT_BROWSER_LOAD_TIMEOUT_MS,
  DEFAULT_BROWSER_MAX_OUTPUT_TOKENS,
} from '../models/browser.js';
export { DEFAULT_TURN_GRAMMAR_LIMITS, type TurnGrammarLimits, turnGrammar } from '../models/local-grammar.js';
