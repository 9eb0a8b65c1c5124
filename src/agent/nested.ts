/**
 * The seam between a tool call and a nested agent run (`agentTool`): a tool that carries a
 * {@link NestedRunner} is run by `act` as a generator, so the nested run's events reach the parent's
 * stream, and it gets the parent run (its budget, effects and signal) instead of a plain tool context.
 *
 * @module
 */
import type { ToolOutcome } from '../tools/router.js';
import type { Tool } from '../tools/types.js';
import type { Run } from './run.js';
import type { AgentEvent } from './types.js';

/** The property of a tool that runs a nested agent. */
export const NESTED_RUNNER: unique symbol = Symbol('taoloop.nestedRunner');

/** The parent run, as a nested agent sees it. */
export interface ParentRun {
  /** The parent run: its signal, budget, effects, id and streaming reach the nested run. */
  run: Run;
  /** The parent's step (1-based) and the tool call of that step (1-based) that runs the nested agent. */
  step: number;
  call: number;
}

/** Runs a nested agent on `input`, yielding its events (wrapped as `agent-event`), returning the outcome. */
export type NestedRunner = (input: string, parent: ParentRun) => AsyncGenerator<AgentEvent, ToolOutcome>;

/** The nested runner of `tool`, when it is an agent tool. */
export function nestedRunnerOf(tool: Tool): NestedRunner | undefined {
  const runner = (tool as { [NESTED_RUNNER]?: unknown })[NESTED_RUNNER];
  return typeof runner === 'function' ? (runner as NestedRunner) : undefined;
}
