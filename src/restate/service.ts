/**
 * The agent as a Restate workflow: one workflow invocation per run, every side effect of a step journaled.
 *
 * Sources: Restate TypeScript SDK docs, "Durable steps" (`ctx.run`), "Workflows" (the `run` handler runs
 * once per workflow ID; shared handlers and durable promises `ctx.promise(name)` signal it while it runs)
 * and "Retries" (`RunOptions`): https://docs.restate.dev/develop/ts/durable-steps,
 * https://docs.restate.dev/develop/ts/workflows.
 *
 * @module
 */
import * as restate from '@restatedev/restate-sdk';
import { runAgent } from '../agent/loop.js';
import type { AgentConfig } from '../agent/options.js';
import type { Journal, RunResult } from '../agent/types.js';
import { errorMessage } from '../util/own.js';
import { answerPending, durableApprover, PENDING_KEY, type PendingApproval } from './approvals.js';

export {
  type ApprovalAnswer,
  approvalPromiseName,
  type PendingApproval,
  parseApprovalAnswer,
} from './approvals.js';

/** Default workflow name, as used in ingress URLs (`/taoloopAgent/<runId>/run`). */
export const DEFAULT_AGENT_SERVICE_NAME = 'taoloopAgent';

/** What a client sends to start a run (the body of the workflow's `run` handler). JSON only. */
export interface RunRequest {
  /** The question or task. */
  question: string;
  /** Overrides the step limit chosen by `buildRun`, when `buildRun` honours it. */
  maxSteps?: number;
  /** Free-form strings for `buildRun` (dataset item id, user id, tool set name). */
  metadata?: Record<string, string>;
  /**
   * An episode of `taoloop eval --restate`: the worker builds the same run a local eval would (the
   * strategy's few-shot prompt, labels, instructions, fresh Wikipedia tools; see `evalRunOptions`).
   */
  eval?: EvalEpisode;
}

/** What a worker needs to run one eval episode as `taoloop eval` would. JSON only. */
export interface EvalEpisode {
  /** The agent strategies; the tool-less ones (standard, cot, cot-sc) and the hybrids stay local. */
  strategy: 'react' | 'act';
  /** `qa` or `fever` (FEVER asks with the `Claim` label). */
  kind: 'qa' | 'fever';
  /** The strategy's few-shot prompt, in the paper's format, as the client loaded it. */
  prompt: string;
}

/**
 * Agent options a worker builds for one run, without `approve`, `signal` and `durable`: the approvals, the
 * abort signal, the journal (`durable.journal`) and the run ID (`durable.runId`: the workflow ID, so a
 * tool's `callId` is the same on every attempt) come from Restate.
 */
export type DurableRunOptions = Omit<AgentConfig, 'approve' | 'signal' | 'durable'> & { question: string };

/** Options for {@link agentService}. */
export interface AgentServiceOptions {
  /** Workflow name in Restate; clients must use the same. @default 'taoloopAgent' */
  name?: string;
  /**
   * Builds the model, tools and limits for one run. Called again whenever Restate replays the run on a
   * worker (after a crash or a suspension), so it must give the same options for the same request.
   * A throw ends the run with a terminal error (it is a configuration mistake, not a passing fault).
   */
  buildRun: (input: RunRequest) => Promise<DurableRunOptions>;
  /**
   * Retries of a failing model call (tool calls never throw) inside `ctx.run`; when they are used up the
   * failure is journaled and the run ends with status `error`, as an in-process run would.
   * @default { maxRetryAttempts: 3, initialRetryInterval: 1000 }
   */
  retry?: Omit<restate.RunOptions<unknown>, 'serde'>;
  /**
   * How long an approval may wait before it counts as rejected, in milliseconds (a durable timer: it
   * survives restarts). @default undefined (wait as long as it takes: hours or days)
   */
  approvalTimeoutMs?: number;
  /**
   * The largest journal entry (a model turn, a tool call's record) and run result a worker writes, in
   * bytes of JSON. Entries are bounded already (turns are capped, observations truncated, full tool
   * outputs left out); one still over this ends the run once, with a terminal error that says so, instead
   * of failing on Restate's message limit (32 MiB) and being retried with its effects again and again.
   * @default 16 MiB
   */
  maxEntryBytes?: number;
  /** Workflow options passed to Restate (retry policy, retention, timeouts). */
  options?: restate.WorkflowOptions;
}

/** Default of {@link AgentServiceOptions.maxEntryBytes}: half of Restate's default message size limit. */
export const DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024;

const DEFAULT_RETRY: Omit<restate.RunOptions<unknown>, 'serde'> = {
  maxRetryAttempts: 3,
  initialRetryInterval: 1000,
};

/**
 * A {@link Journal} backed by `ctx.run`: each model and tool call is recorded under its name, and a replay
 * returns the recorded result instead of calling again. Approvals (`step-N-approval`) are not wrapped:
 * they wait on a durable promise, which Restate records itself and which cannot live inside `ctx.run`.
 * A result over `maxEntryBytes` (as JSON) is recorded as a terminal failure instead, so the effect that
 * produced it is never made again.
 */
export function restateJournal(
  ctx: restate.Context,
  retry: Omit<restate.RunOptions<unknown>, 'serde'> = DEFAULT_RETRY,
  maxEntryBytes: number = DEFAULT_MAX_ENTRY_BYTES,
): Journal {
  return <T>(name: string, effect: () => Promise<T>): Promise<T> =>
    name.endsWith('-approval')
      ? effect()
      : ctx.run(name, () => bounded(name, effect, maxEntryBytes), retry as restate.RunOptions<T>);
}

/** Runs `effect`; its result when it fits in `maxBytes` of JSON. @throws {restate.TerminalError} otherwise. */
async function bounded<T>(name: string, effect: () => Promise<T>, maxBytes: number): Promise<T> {
  const value = await effect();
  const bytes = jsonBytes(value);
  if (bytes > maxBytes) {
    throw new restate.TerminalError(
      `${name}: the result is ${mebibytes(bytes)}, over the journal's limit of ${mebibytes(maxBytes)} per entry (maxEntryBytes); the run ends here so that the effect is not made again`,
    );
  }
  return value;
}

function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Buffer.byteLength(json);
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Defines the agent as a Restate workflow. Handlers (all JSON over the ingress, see `client.ts`):
 * - `run(RunRequest) → RunResult`: the whole run, one invocation, once per workflow ID (the run ID).
 * - `pending() → PendingApproval | null`: the approval the run waits for, if any.
 * - `approve(ApprovalAnswer)`: answers it, by resolving the durable promise `step-N-approval`; the
 *   answer must name the waiting request (step, tool, input), else it is refused (HTTP 409).
 *
 * Every tool call is journaled (read tools too) with the observation the model saw, and gets the call ID
 * `<run id>:step-<n>`, the same on every attempt.
 *
 * A worker that dies mid-run is resumed by Restate on any worker from the journal: recorded model and tool
 * calls are not made again. A call that was in flight when the worker died (not yet recorded) runs again:
 * Restate gives at-least-once for `ctx.run`, so tools with effects should be idempotent.
 *
 * @example
 * ```ts
 * const agent = agentService({
 *   buildRun: async (request) => ({ model, tools: [calculator], question: request.question }),
 * });
 * await startWorker({ port: 9080, services: [agent] });
 * ```
 */
export function agentService(options: AgentServiceOptions) {
  const retry = options.retry ?? DEFAULT_RETRY;
  return restate.workflow({
    name: options.name ?? DEFAULT_AGENT_SERVICE_NAME,
    handlers: {
      /** Runs the agent on a {@link RunRequest}: the workflow's one run, keyed by the run id. */
      run: async (ctx: restate.WorkflowContext, input: unknown): Promise<RunResult> => {
        const request = parseRunRequest(input);
        let runOptions: DurableRunOptions;
        try {
          runOptions = await options.buildRun(request);
        } catch (error) {
          throw new restate.TerminalError(`could not build the run: ${errorMessage(error)}`);
        }
        const approve = durableApprover(ctx, options.approvalTimeoutMs);
        const maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
        let result: RunResult;
        try {
          result = await runAgent({
            ...runOptions,
            approve,
            // A worker that stops (SIGTERM) or loses Restate's connection cancels its calls in flight;
            // Restate runs the attempt again elsewhere from the journal.
            signal: ctx.request().attemptCompletedSignal,
            durable: { journal: restateJournal(ctx, retry, maxEntryBytes), runId: ctx.key },
          });
        } catch (error) {
          // The loop throws for caller mistakes (an invalid tool list) and for a journal entry over its limit.
          throw new restate.TerminalError(errorMessage(error));
        }
        const bytes = jsonBytes(result);
        if (bytes > maxEntryBytes) {
          throw new restate.TerminalError(
            `the run ended (${result.status}) but its result is ${mebibytes(bytes)}, over the limit of ${mebibytes(maxEntryBytes)} (maxEntryBytes); its steps are in the journal`,
          );
        }
        return result;
      },
      /** The approval the run waits for, or `null` when it waits for none. */
      pending: async (ctx: restate.WorkflowSharedContext): Promise<PendingApproval | null> =>
        (await ctx.get<PendingApproval>(PENDING_KEY)) ?? null,
      /** Answers the pending approval; the answer must name the request it answers. */
      approve: answerPending,
    },
    ...(options.options && { options: options.options }),
  });
}

/** The type of the workflow {@link agentService} defines. */
export type AgentWorkflow = ReturnType<typeof agentService>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @throws {restate.TerminalError} for a body that is not a {@link RunRequest}. */
export function parseRunRequest(input: unknown): RunRequest {
  if (!isRecord(input) || typeof input.question !== 'string' || input.question.trim() === '') {
    throw new restate.TerminalError('the run request needs a non-empty "question" string', {
      errorCode: 400,
    });
  }
  const { maxSteps, metadata } = input;
  const episode = input.eval;
  if (maxSteps !== undefined && !(Number.isInteger(maxSteps) && (maxSteps as number) >= 1)) {
    throw new restate.TerminalError('"maxSteps" must be a whole number ≥ 1', { errorCode: 400 });
  }
  if (metadata !== undefined && !(isRecord(metadata) && Object.values(metadata).every(isString))) {
    throw new restate.TerminalError('"metadata" must map names to strings', { errorCode: 400 });
  }
  if (episode !== undefined && !isEvalEpisode(episode)) {
    throw new restate.TerminalError(
      '"eval" must be {"strategy": "react" | "act", "kind": "qa" | "fever", "prompt": string}',
      { errorCode: 400 },
    );
  }
  return {
    question: input.question,
    ...(maxSteps !== undefined && { maxSteps: maxSteps as number }),
    ...(metadata !== undefined && { metadata: metadata as Record<string, string> }),
    ...(episode !== undefined && {
      eval: { strategy: episode.strategy, kind: episode.kind, prompt: episode.prompt },
    }),
  };
}

function isEvalEpisode(value: unknown): value is EvalEpisode {
  return (
    isRecord(value) &&
    (value.strategy === 'react' || value.strategy === 'act') &&
    (value.kind === 'qa' || value.kind === 'fever') &&
    typeof value.prompt === 'string'
  );
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
