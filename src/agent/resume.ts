/**
 * `resumeAgent` and `streamResumedAgent`: continue a paused run (see `pause.ts`).
 *
 * @module
 */
import { ownField } from '../util/own.js';
import { drain, streamRun } from './loop.js';
import type { AgentConfig, ResumeOptions } from './options.js';
import type { AgentEvent, RunResult } from './types.js';

/**
 * Continues a run that ended `paused`, yielding its events: the same loop over the same options, with the
 * journal of the paused run replayed (no model call, approval or tool call that happened is made again)
 * and the decisions applied to the pending requests. It ends like any run, or `paused` again at the next
 * approval. Works in any process, at any later time: everything needed is in `state` and the options.
 *
 * `state` is read once, as JSON data (`JSON.parse(JSON.stringify(state))`), and that copy is checked
 * (signature, shape) and used; `decisions` are read once too, each as own data properties. So an object
 * whose getters or proxy answer otherwise on a later read changes nothing after the check.
 *
 * Events start where the paused run's ended (the first is `run-start`, then what follows the decisions);
 * `result.steps` holds the whole trajectory. `result.durationMs` counts from the resume.
 *
 * **Resume each state once.** A state is data the caller keeps; taoloop keeps no record of which states
 * were resumed, so resuming the same state again (a retried request, a double click, a replayed POST, a
 * copy of the state) runs its approved calls again. The caller must make the second resume impossible:
 * before resuming, mark the state used where it is stored, atomically (delete the row and resume only if
 * this request deleted it, or insert its `pending` ids into a table with a unique key), and pass a state
 * at most once. As a second line, tools with external effects should pass `context.callId` on as an
 * idempotency key: it is the same on every resume of the same state (and differs between the calls of a
 * run), so the effect's service can drop the repeat.
 *
 * @throws {RunStateError} (from the first `next()`, before any side effect) for a state that is not a
 * taoloop run state, of another version, tampered with or signed with another secret (with
 * `durable.secret`), and for decisions that do not match the pending requests; while replaying, when the
 * run does not follow the recorded one (other model, tools or options), before anything new runs.
 * @throws {AgentConfigError} together with a `durable.journal`, and for the loop's own caller mistakes.
 */
export function streamResumedAgent<O = unknown>(
  options: ResumeOptions<O>,
): AsyncGenerator<AgentEvent, RunResult<O>> {
  // Own properties only: an inherited `state` or `decisions` (a polluted prototype) counts as absent.
  const { state: _state, decisions: _decisions, ...agentOptions } = options;
  const resume = { state: ownField(options, 'state'), decisions: ownField(options, 'decisions') };
  return streamRun(agentOptions as AgentConfig, { resume }) as AsyncGenerator<AgentEvent, RunResult<O>>;
}

/**
 * Continues a paused run to its end and returns its {@link RunResult}: {@link streamResumedAgent}, drained.
 *
 * @example
 * ```ts
 * const durable = { pauseForApproval: true, secret };
 * const first = await runAgent({ ...options, durable });
 * if (first.status === 'paused') {
 *   await db.save(runId, JSON.stringify(first.state)); // later, in any process:
 *   const state = JSON.parse(await db.load(runId));
 *   const [request] = state.pending;
 *   const decisions = { [request.id]: { type: 'approve' } } as const;
 *   const result = await resumeAgent({ ...options, durable, state, decisions });
 * }
 * ```
 * @throws {RunStateError} as {@link streamResumedAgent} does.
 */
export function resumeAgent<O = unknown>(options: ResumeOptions<O>): Promise<RunResult<O>> {
  return drain(streamResumedAgent(options));
}
