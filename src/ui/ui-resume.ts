/**
 * Resuming a paused run from what `useChat` sends back. A paused run's UI stream leaves, in the assistant
 * message, a tool part in state `approval-requested` per pending request (its approval id is the request
 * id) and a `data-run-pause` part with the run's signed state. The client keeps both in its messages; when
 * the person answers (`addToolApprovalResponse`), the tool part becomes `approval-responded` and `useChat`
 * posts the messages again. So the state travels with the chat: the server stores nothing between the two
 * requests, and the signature (the `secret`) is what makes that safe.
 *
 * @module
 */
import type { ResumeInput } from '../agent/pause.js';

/** What an approval response in a tool part looks like, read defensively (it comes from the client). */
interface ApprovalPart {
  state?: unknown;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

/**
 * The paused run the last message answers: its state (from the last `data-run-pause` part of the last
 * message, an assistant message) and a decision per tool part of that message in state
 * `approval-responded`. Only an approval
 * whose `approved` is exactly `true` approves; anything else rejects (with the client's reason, if text).
 * `undefined` when the last message is not an assistant message with a `data-run-pause` part.
 */
export function pausedRunIn(messages: unknown): ResumeInput | undefined {
  if (!Array.isArray(messages)) return undefined;
  const last: unknown = messages.at(-1);
  if (!isRecord(last) || last.role !== 'assistant' || !Array.isArray(last.parts)) return undefined;
  const parts = last.parts.filter(isRecord);
  const pause = parts.findLast((part) => part.type === 'data-run-pause');
  if (pause === undefined || !isRecord(pause.data)) return undefined;
  const decisions: Record<string, unknown> = {};
  for (const part of parts as ApprovalPart[]) {
    // Approvals answered and run before an earlier pause of the same message are in other states.
    if (part.state !== 'approval-responded') continue;
    const approval = part.approval;
    if (!isRecord(approval) || typeof approval.id !== 'string' || !('approved' in approval)) continue;
    decisions[approval.id] =
      approval.approved === true
        ? { type: 'approve' }
        : { type: 'reject', ...(typeof approval.reason === 'string' && { reason: approval.reason }) };
  }
  return { state: pause.data.state, decisions };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
