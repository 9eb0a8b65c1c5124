/**
 * Resuming a paused run from what `useChat` sends back. A paused run's UI stream leaves, in the assistant
 * message, a tool part in state `approval-requested` per pending request (its approval id is the request
 * id) and a `data-run-pause` part with the run's signed state. The client keeps both in its messages; when
 * the person answers (`addToolApprovalResponse`), the tool part becomes `approval-responded` and `useChat`
 * posts the messages again. So the state travels with the chat: the server stores nothing between the two
 * requests, and the signature (with `durable.secret`) is what makes that safe.
 *
 * @module
 */

import { RunStateError } from '../agent/errors.js';
import type { ResumeInput } from '../agent/pause.js';
import { ownData } from './own-data.js';

/** What an approval response in a tool part looks like, read defensively (it comes from the client). */
interface ApprovalPart {
  type?: unknown;
  state?: unknown;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

/**
 * The paused run the last message answers: its state (from the last `data-run-pause` part of the last
 * message, an assistant message) and a decision per tool part (`tool-<name>` or `dynamic-tool`) of that
 * message in state `approval-responded`. Only an approval whose own `approved` field is exactly `true`
 * approves; anything else rejects (with the client's reason, if text). Every field is read as the client's
 * own data (see `own-data.ts`): a field inherited from a polluted `Object.prototype` counts as absent.
 * Approval fields on any other part (text, reasoning, data) are not read. `undefined` when the last message
 * is not an assistant message with a `data-run-pause` part.
 *
 * @throws {RunStateError} (`decision`) when one approval id is answered by more than one tool part: which
 * answer counts would be a guess, so none does.
 * @throws {OwnDataError} for a last message nested deeper than 200 levels.
 */
export function pausedRunIn(messages: unknown): ResumeInput | undefined {
  if (!Array.isArray(messages)) return undefined;
  // Read as own data: an `approved` (or any field) only `Object.prototype` has is absent, and rejects.
  const last: unknown = ownData(messages.at(-1));
  if (!isRecord(last) || last.role !== 'assistant' || !Array.isArray(last.parts)) return undefined;
  const parts = last.parts.filter(isRecord);
  const pause = parts.findLast((part) => part.type === 'data-run-pause');
  if (pause === undefined || !isRecord(pause.data)) return undefined;
  // No prototype: an id such as `__proto__` is a key like any other (and refused as not pending).
  const decisions: Record<string, unknown> = Object.create(null);
  for (const part of parts as ApprovalPart[]) {
    // Approvals answered and run before an earlier pause of the same message are in other states.
    if (!isToolPart(part) || part.state !== 'approval-responded') continue;
    const approval = part.approval;
    if (!isRecord(approval) || typeof approval.id !== 'string' || !('approved' in approval)) continue;
    if (Object.hasOwn(decisions, approval.id)) {
      throw new RunStateError(
        'decision',
        `the approval ${JSON.stringify(approval.id)} is answered more than once in the last message: send one response per request.`,
      );
    }
    decisions[approval.id] =
      approval.approved === true
        ? { type: 'approve' }
        : { type: 'reject', ...(typeof approval.reason === 'string' && { reason: approval.reason }) };
  }
  return { state: pause.data.state, decisions };
}

/** A tool part of a UI message (`tool-<name>`, or `dynamic-tool`): the only parts that carry approvals. */
function isToolPart(part: { type?: unknown }): boolean {
  return typeof part.type === 'string' && (part.type.startsWith('tool-') || part.type === 'dynamic-tool');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
