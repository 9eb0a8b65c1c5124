/**
 * Agents as tools: `agentTool({ name, description, ...agentOptions })` makes a run of a nested agent a tool
 * of another agent. Inside a run, the nested run's events reach the parent's stream (`agent-event`, with
 * the path of agent tools they come from), its approvals go to the parent's `approve` (or pause the
 * parent, and a resume goes back into the nested run), it shares the parent's budgets (tokens, cost, time)
 * and abort signal, and its effects pass through the parent's journal, so its trajectory is in the parent's
 * trace.
 *
 * @module
 */
import { DEFAULT_MAX_OUTPUT_CHARS, type ToolOutcome } from '../tools/router.js';
import type { Tool, ToolEffects } from '../tools/types.js';
import { anySignal } from '../util/own.js';
import { drain } from './effects.js';
import { RunPaused } from './errors.js';
import { streamRun } from './loop.js';
import { type AgentConfig, runSettings } from './options.js';
import { NESTED_RUNNER, type ParentLink } from './run.js';
import type { AgentEvent, RunResult } from './types.js';

/** Longest task an agent tool takes by default, in characters. */
export const DEFAULT_AGENT_TOOL_MAX_INPUT_CHARS = 4000;

/**
 * Options for {@link agentTool}: the tool's name and description, and the nested agent's own options
 * (model, tools, limits, instructions...). The task the parent's model writes is the nested run's question.
 */
export type AgentToolOptions = Omit<AgentConfig, 'approve' | 'durable'> & {
  /** The tool's name, as the parent's model calls it: letters, digits, `_` and `-`. */
  name: string;
  /** What the nested agent does and what task to give it, for the parent's model. */
  description: string;
  /** How to write the task, shown in the parent's prompt. @default 'the task, in one or two sentences' */
  inputHint?: string;
  /** Longest task accepted, in characters. @default 4000 */
  maxInputChars?: number;
  /** The nested agent's answer reaches the parent truncated past this, in characters. @default 4000 */
  maxOutputChars?: number;
};

/**
 * A tool that runs a nested agent on the task the model writes and answers with that agent's answer.
 *
 * - Its `effects` are the union of its tools' effects (`external` over `write` over `read`). It asks for no
 *   approval itself: each of its tools that needs one asks the parent's `approve` (or pauses the parent
 *   run, with `durable.pauseForApproval`, and `resumeAgent` goes back into the nested run). Its own
 *   `limits.allowTools` apply to its tools.
 * - Budgets are shared: the nested run stops at its own `limits.maxTokens` / `limits.maxCostUsd` /
 *   `limits.timeoutMs` and at what the parent has left; its model calls count in the parent's `usage` and
 *   `costUsd`; the parent's abort signal (and clock) stop it.
 * - Its events reach the parent's stream as `agent-event`s (`path: [name]`, nested deeper: `[outer,
 *   inner]`), so a trace keeps its trajectory and `taoloop trace` shows it indented.
 * - An answer is the observation (`ok: true`); a run that stops without one is an `ok: false`
 *   observation saying why (`Error: the agent <name> stopped without an answer (max_steps)`).
 *
 * Outside a run (`tool.run(task, context)` by hand) it runs the nested agent on its own and returns the
 * answer, or throws when there is none.
 *
 * @throws {AgentConfigError} for an option of the nested agent that does not exist (as `runAgent` would).
 *
 * @example
 * ```ts
 * const researcher = agentTool({ name: 'researcher', description: 'Finds facts on the web.', model, tools: [search] });
 * await runAgent({ model, tools: [researcher, calculator], question });
 * ```
 */
export function agentTool(options: AgentToolOptions): Tool {
  const { name, description, inputHint, maxInputChars, maxOutputChars, ...agent } = options;
  // A caller mistake in the nested agent's options is found now, not when the parent's model calls it.
  runSettings({ ...agent, question: 'check' });
  const runner = (input: string, parent: Omit<ParentLink, 'name'>) =>
    runNested(name, agent, input, parent, maxOutputChars);
  const tool: Tool & { [NESTED_RUNNER]: typeof runner } = {
    name,
    description,
    inputHint: inputHint ?? 'the task, in one or two sentences',
    effects: unionOfEffects(agent.tools),
    needsApproval: false,
    maxInputChars: maxInputChars ?? DEFAULT_AGENT_TOOL_MAX_INPUT_CHARS,
    maxOutputChars: maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
    // The nested run has its own limits; a tool timeout (30 s by default) would cut it short.
    timeoutMs: agent.limits?.timeoutMs ?? 2_147_483_647,
    async run(task: string, context) {
      const signal = anySignal(agent.signal, context.signal);
      const result = await drain(streamRun({ ...agent, question: task, ...(signal && { signal }) }));
      if (result.status !== 'answered') throw new Error(noAnswer(name, result));
      return result.answer ?? '';
    },
    [NESTED_RUNNER]: runner,
  };
  return tool;
}

/** `external` when any tool has external effects, else `write` when any writes, else `read`. */
export function unionOfEffects(tools: readonly Tool[]): ToolEffects {
  const effects = tools.map((tool) => tool.effects ?? 'read');
  if (effects.includes('external')) return 'external';
  return effects.includes('write') ? 'write' : 'read';
}

/**
 * The nested run inside a parent run (`streamRun` with a parent link): it shares the parent's budget,
 * signal and effects (its own under the parent's tool call), and its events are wrapped as `agent-event`s.
 */
async function* runNested(
  name: string,
  agent: Omit<AgentToolOptions, 'name' | 'description' | 'inputHint' | 'maxInputChars' | 'maxOutputChars'>,
  task: string,
  parent: Omit<ParentLink, 'name'>,
  maxOutputChars: number | undefined,
): AsyncGenerator<AgentEvent, ToolOutcome> {
  const { step, call } = parent;
  const started = performance.now();
  const run = streamRun({ ...agent, question: task }, { parent: { ...parent, name } });
  let next = await run.next();
  const at = call > 1 ? { step, call } : { step };
  while (!next.done) {
    const event = next.value;
    yield event.type === 'agent-event'
      ? { type: 'agent-event', ...at, path: [name, ...event.path], event: event.event }
      : { type: 'agent-event', ...at, path: [name], event };
    next = await run.next();
  }
  const result = next.value;
  // A nested approval that pauses pauses the parent: its pending requests become the parent's.
  if (result.status === 'paused') throw new RunPaused(result.pending ?? []);
  const durationMs = Math.round(performance.now() - started);
  if (result.status !== 'answered')
    return { ok: false, observation: `Error: ${noAnswer(name, result)}`, durationMs };
  return { ...truncated(result.answer ?? '', maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS), durationMs };
}

/** What a nested run that did not answer tells the parent's model. */
function noAnswer(name: string, result: RunResult): string {
  const why = result.error ? `: ${result.error}` : '';
  return `the agent ${name} stopped without an answer (${result.status}${why})`;
}

/** The answer cut to `limit` characters with the router's marker, keeping the whole for the trace. */
function truncated(text: string, limit: number): Pick<ToolOutcome, 'ok' | 'observation' | 'fullOutput'> {
  if (text.length <= limit) return { ok: true, observation: text };
  const cut = text.length - limit;
  return {
    ok: true,
    observation: `${text.slice(0, limit)}\n[... output truncated: ${cut} more characters not shown]`,
    fullOutput: text,
  };
}
