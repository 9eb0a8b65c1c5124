/**
 * The ids of a run and of what happens in it, made in one place: the run's id, a tool call's `callId`
 * (the idempotency key a tool with external effects passes on), an approval request's id, the id of a
 * step's tool call in the AI SDK UI stream, and the names under which effects are recorded.
 *
 * @module
 */

/**
 * A run ID for a run that was given none: a random UUID (`crypto.randomUUID`, which browsers offer only
 * in secure contexts; elsewhere a random hexadecimal string of the same length).
 */
export function newRunId(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}

/**
 * A step's `call`-th tool call within its run (`call` from 1): `step-<n>` for the first, `step-<n>-call-<k>`
 * for a native step's `k`-th. The UI stream's `toolCallId`; the part after `<run id>:` in a tool's callId.
 */
export function stepCallId(step: number, call = 1): string {
  return call > 1 ? `step-${step}-call-${call}` : `step-${step}`;
}

/**
 * The identifier of a tool call (see `ToolContext.callId`): `<run id>:step-<n>` for a step's first call,
 * `<run id>:step-<n>-call-<k>` for its `k`-th, so no two calls of a run share one, and the same on every
 * resume or durable retry of the run.
 */
export function toolCallId(runId: string, step: number, call = 1): string {
  return `${runId}:${stepCallId(step, call)}`;
}

/** The id of an approval request: `<run id>/step-<n>/call-<k>` (see `ApprovalRequest.id`). */
export function approvalId(runId: string, step: number, call: number): string {
  return `${runId}/step-${step}/call-${call}`;
}

/** The name under which a step's effect is recorded: `step-<n>-model`, `step-<n>-approval`, ... */
export function effectName(step: number, effect: 'model' | 'approval' | 'tool' | `hook-${number}`): string {
  return `step-${step}-${effect}`;
}

/** The id of a step's text or reasoning part in the AI SDK UI stream: `text-<n>`, `reasoning-<n>`. */
export function uiPartId(kind: 'text' | 'reasoning', step: number): string {
  return `${kind}-${step}`;
}
