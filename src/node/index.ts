/**
 * `taoloop/node`: everything of the portable core (`taoloop`), plus what needs Node: tools over files and
 * subprocesses (`createReadFileTool`, `createRunTestsTool` in a sandbox), a search tool over a folder
 * with its on-disk index cache, a Wikipedia corpus file and response cache, a person at the terminal
 * (`createHumanTool`), MCP servers (stdio or HTTP), the embedded llama.cpp model (`local:`), recorded
 * runs (`replay:`), the default model chain and OTLP export. Where a function exists in both entries
 * (`resolveModelSpec`, `createSearchTool`, `wikipediaApi`), this one accepts everything the portable one
 * does, and the Node-only forms too.
 *
 * @example
 * ```ts
 * import { createReadFileTool, createSearchTool, resolveModelSpec, runAgent } from 'taoloop/node';
 * const model = await resolveModelSpec('local:./model.gguf');
 * const tools = [await createSearchTool({ docsDir: 'docs' }), createReadFileTool({ root: '.' })];
 * const result = await runAgent({ model, tools, question: 'What does the refund policy say?' });
 * ```
 *
 * @module taoloop/node
 */
export * from '../index.js';
export {
  type ChooseModelOptions,
  chooseModel,
  describeModelChoices,
  type ModelChoice,
  type ModelChoiceSource,
} from '../models/choose.js';
export { type LocalModel, type LocalModelOptions, localModel } from '../models/local.js';
export { otlpTracer } from '../telemetry/otlp.js';
export { createHumanTool, type HumanToolOptions } from '../tools/human.js';
export {
  McpConnectionError,
  type McpServerOptions,
  type McpTool,
  type McpToolSet,
  type McpToolsOptions,
  mcpTools,
} from '../tools/mcp.js';
export { createReadFileTool, type ReadFileTool, type ReadFileToolOptions } from '../tools/read-file.js';
export { createRunTestsTool, type RunTestsTool, type RunTestsToolOptions } from '../tools/run-tests.js';
export { looksLikeSecretName, SECRET_NAME_PATTERNS } from '../tools/safe-path.js';
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from '../tools/sandbox.js';
export {
  createSearchIndex,
  createSearchTool,
  DEFAULT_CACHE_MIN_PASSAGES,
  DEFAULT_MAX_DOCUMENT_BYTES,
  DocsFolderError,
  type ReadDocumentsOptions,
  readDocuments,
  type SearchIndexOptions,
  type SearchIndexResult,
  type SearchToolOptions,
} from '../tools/search.js';
export { type WikipediaApiNodeOptions, wikipediaApi, wikipediaCorpus } from '../tools/wikipedia.js';
export { conversationOfTrace, createFileStore, type FileStoreOptions } from '../trace/conversation-store.js';
export { type ReplayModel, type ReplayModelOptions, replayModel } from '../trace/replay-model.js';
export { readTrace, type Trace, TraceFormatError, TraceWriteError } from '../trace/trace.js';
export { resolveModelSpec } from './resolve-model.js';
