/**
 * What the playground's endpoints share (`api.ts`, `api-traces.ts`), made once by `startPlayground`.
 *
 * @module
 */
import type { ModelPrice, PriceTable } from '../models/pricing.js';
import type { Model } from '../models/types.js';
import type { SearchDocuments } from '../tools/search-tool.js';
import type { Tool } from '../tools/types.js';
import type { BrowserModelSource } from './browser-assets.js';
import type { RunSession } from './run-session.js';

/** What the endpoints share. */
export interface PlaygroundContext {
  /** Model specs the page may pick from; no other spec is ever resolved. */
  models: readonly string[];
  /** Shown when `models` is empty. */
  modelHelp: string;
  /** Shown under the model picker when there are models (e.g. why a model is not offered). */
  modelNote?: string;
  tools: readonly Tool[];
  createModel: (spec: string) => Promise<Model>;
  runsDir: string;
  prices?: PriceTable;
  /** The price of every offered model, over `prices` (see `PlaygroundOptions.price`). */
  price?: ModelPrice;
  sessions: Map<string, RunSession>;
  /** Runs in progress at once; a run asked for beyond it is refused with 429. */
  maxRuns: number;
  /** Runs accepted whose model is still being made (they count against `maxRuns`). */
  starting: number;
  /** The model the page runs itself, if any (see `PlaygroundOptions.browserModel`). */
  browserModel?: BrowserModelSource;
  /** The documents the in-page search tool searches. */
  browserDocuments?: SearchDocuments;
  /** Where "Save as test" writes a run's trace as a fixture for `taoloop test`. */
  testsDir: string;
  /** The folder paths are shown relative to (the working directory). */
  cwd: string;
  /** Flags `taoloop test` needs for the offered tools (e.g. `--docs <dir>`), shown with the command. */
  testFlags: readonly string[];
  /**
   * Why model `spec` does not answer, or `undefined` when it does (or cannot be checked): asked before
   * each run starts (see `model-check.ts`).
   */
  checkModel: (spec: string) => Promise<string | undefined>;
}
