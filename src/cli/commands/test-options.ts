/**
 * The options and context of `taoloop test` (`test.ts`, `test-cases.ts`).
 *
 * @module
 */
import type { AgentConfig } from '../../agent/options.js';
import type { CaseScorer } from '../../eval/cases.js';
import type { RunCommandOptions } from '../options.js';

/** Options of `taoloop test`: those of `run` plus the test's own. */
export interface TestCommandOptions extends RunCommandOptions {
  update: boolean;
  mask: string[];
  agent?: string;
  repeats: number;
  concurrency: number;
  out: string;
  minPass?: number;
  compareModel?: string;
  compare?: string;
  junit?: string;
}

/** Where the command runs, and which options were given rather than defaulted. */
export interface TestContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: string | undefined;
  /** Option keys given on the command line, in the environment or in the config file. */
  given: ReadonlySet<string>;
  /** Option keys given on the command line itself. */
  onCommandLine: ReadonlySet<string>;
}

/** What an `--agent` module gives: the agent but its model, and scorers for `expect.scorer`. */
export interface AgentModule {
  agent: Omit<AgentConfig, 'model'>;
  scorers: Record<string, CaseScorer>;
}
