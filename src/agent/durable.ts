/**
 * What a run with a {@link Journal} records, and how a resumed run reads it back.
 *
 * - A model call is recorded as its (capped) response; each attempt the journal makes gets its own
 *   `modelTimeoutMs`, so a retry after a hung call is a real new call.
 * - Every tool call is recorded, read tools included, as the observation the model saw (never the
 *   tool's full output) plus the tool's {@link ToolSnapshot}; a replayed call restores the snapshot, so a
 *   stateful tool (`lookup` after `search`) goes on as if it had run in this process.
 * - Each tool call carries a call ID, `<run id>:step-<n>`, the same on every attempt: the idempotency
 *   key of tools with external effects.
 *
 * @module
 */
import { seconds } from '../models/call-progress.js';
import { ModelTimeoutError } from '../models/errors.js';
import type { ModelRequest, ModelResponse } from '../models/types.js';
import type { ExecuteOptions, PreparedCall, ToolOutcome, ToolRouter } from '../tools/router.js';
import type { ToolSnapshot } from '../tools/types.js';
import { timeoutSignal } from '../util/own.js';
import type { Journal } from './types.js';

/** A tool snapshot longer than this (as JSON, in characters) is not recorded: the journal stays small. */
export const MAX_SNAPSHOT_CHARS = 4_000_000;

/**
 * A run ID for a run that was given none: a random UUID (`crypto.randomUUID`, which browsers offer only
 * in secure contexts; elsewhere a random hexadecimal string of the same length).
 */
export function newRunId(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}

/**
 * The identifier of a tool call (see `ToolContext.callId`): `<run id>:step-<n>` for a step's first call,
 * `<run id>:step-<n>-call-<k>` for its `k`-th (a native step with several calls), so no two calls of a run
 * share one.
 */
export function toolCallId(runId: string, step: number, call = 1): string {
  return call > 1 ? `${runId}:step-${step}-call-${call}` : `${runId}:step-${step}`;
}

/** What the journal records for one tool call. */
interface ToolRecord {
  /** The outcome as the model saw it: the observation, already truncated; no `fullOutput`. */
  outcome: ToolOutcome;
  /** The tool's snapshot after the call, when it has one and it is small enough. */
  snapshot?: unknown;
}

/**
 * Runs a tool call through `journal` as `step-<n>-tool` and returns the recorded outcome. When the
 * journal answers from its record (a resumed run), the tool does not run, and its snapshot is restored.
 * With `keepFullOutput` (a run that may pause: its result stays in the process), a call that ran here also
 * returns the tool's full output, which is never recorded; a durable engine's run result is recorded, so
 * there it stays out. Never throws, except what the journal itself throws (e.g. an entry over its size limit).
 */
export async function journaledToolCall(
  journal: Journal,
  step: number,
  call: PreparedCall,
  router: ToolRouter,
  execution: ExecuteOptions,
  keepFullOutput = false,
): Promise<ToolOutcome> {
  let ran = false;
  let fullOutput: string | undefined;
  const snapshot = call.tool.snapshot;
  const record = await journal<ToolRecord | ToolOutcome>(`step-${step}-tool`, async () => {
    ran = true;
    const executed = await router.execute(call, execution);
    const { ok, observation, durationMs } = executed;
    fullOutput = executed.fullOutput;
    const saved = snapshot ? savedSnapshot(snapshot) : undefined;
    return saved === undefined
      ? { outcome: { ok, observation, durationMs } }
      : { outcome: { ok, observation, durationMs }, snapshot: saved };
  });
  // Runs journaled before call records existed stored the outcome itself.
  const { outcome, snapshot: recorded } =
    'outcome' in record ? record : { outcome: record, snapshot: undefined };
  if (!ran && recorded !== undefined) snapshot?.restore(recorded);
  return keepFullOutput && ran && fullOutput !== undefined ? { ...outcome, fullOutput } : outcome;
}

/** The snapshot to record, or `undefined` when saving fails or it is too large. */
function savedSnapshot(snapshot: ToolSnapshot): unknown {
  try {
    const saved = snapshot.save();
    const json = JSON.stringify(saved);
    return json === undefined || json.length > MAX_SNAPSHOT_CHARS ? undefined : JSON.parse(json);
  } catch {
    return undefined;
  }
}

/**
 * Runs a model call through `journal` as `step-<n>-model`. Each attempt gets a copy of `request` whose
 * signal also fires after `modelTimeoutMs`; a call past it fails with an error that says so (and the
 * journal may try again).
 */
export function journaledTurn<T = ModelResponse>(
  journal: Journal,
  step: number,
  request: ModelRequest,
  modelTimeoutMs: number | undefined,
  call: (request: ModelRequest) => Promise<T>,
): Promise<T> {
  return journal(`step-${step}-model`, async () => {
    if (modelTimeoutMs === undefined) return call(request);
    const timer = timeoutSignal(modelTimeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timer.signal]) : timer.signal;
    try {
      return await call({ ...request, signal });
    } catch (error) {
      if (!timer.signal.aborted || request.signal?.aborted || error instanceof ModelTimeoutError) throw error;
      // The journal keeps the message only, so it says what happened.
      throw new Error(`no complete answer from the model within ${seconds(modelTimeoutMs)} (modelTimeoutMs)`);
    } finally {
      timer.clear();
    }
  });
}
