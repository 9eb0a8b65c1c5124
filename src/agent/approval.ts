/**
 * The one place where what an `approve` function gave back becomes a decision. It fails closed: only an
 * exact approval (`{ type: 'approve' }`) or a valid edit (`{ type: 'edit', input: <string> }`) lets a tool
 * with side effects run. Anything else an approver can produce in plain JavaScript (`false`, `'no'`, `{}`,
 * `undefined`, `null`, an unknown or differently cased `type`, an edit whose input is not text, a throw, a
 * rejected promise, a getter or proxy that throws) is a rejection whose reason says what came back.
 *
 * @module
 */

import { errorMessage } from '../util/own.js';
import { RunPaused, RunStateError } from './errors.js';
import type { ApprovalDecision, ApprovalRequest, ApproveFn, PendingApprovalRequest } from './types.js';

/** Longest rejection reason passed on to the model, in characters (the rest is cut). */
const MAX_REASON_CHARS = 500;

/**
 * Turns anything an approver returned into an {@link ApprovalDecision}. Never throws.
 *
 * Only own data properties are read (a `type` inherited from a prototype or computed by a getter does not
 * count), and the decision returned is a fresh object, so nothing the approver keeps can change it later.
 *
 * @returns `{ type: 'approve' }` only for an object whose own `type` is exactly `'approve'`;
 * `{ type: 'edit', input }` only for an own `type` of exactly `'edit'` with an own string `input`; a
 * `{ type: 'reject', reason? }` for everything else.
 */
export function toApprovalDecision(value: unknown): ApprovalDecision {
  try {
    return readDecision(value);
  } catch (error) {
    return { type: 'reject', reason: `the approval answer could not be read (${errorMessage(error)})` };
  }
}

function readDecision(value: unknown): ApprovalDecision {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { type: 'reject', reason: `the approver answered ${describe(value)}, not an approval` };
  }
  const type = ownData(value, 'type');
  switch (type) {
    case 'approve':
      return { type: 'approve' };
    case 'edit': {
      const input = ownData(value, 'input');
      if (typeof input === 'string') return { type: 'edit', input };
      return { type: 'reject', reason: `the edit's input was ${describe(input)}, not text` };
    }
    case 'reject': {
      const reason = ownData(value, 'reason');
      if (typeof reason === 'string' && reason.trim() !== '')
        return { type: 'reject', reason: reason.trim().slice(0, MAX_REASON_CHARS) };
      return { type: 'reject' };
    }
    default:
      return {
        type: 'reject',
        reason: `the approver answered an object whose type is ${describe(type)}, not "approve", "edit" or "reject"`,
      };
  }
}

/** An own data property's value; `undefined` for a missing, inherited or accessor property. */
function ownData(object: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(object, key);
  return descriptor && 'value' in descriptor ? descriptor.value : undefined;
}

/** What kind of value came back, without echoing its content (which the model will read). */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'undefined':
      return 'nothing (undefined)';
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return 'a number';
    case 'boolean':
      return `${value}`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    case 'object':
      return 'an object';
    default:
      return 'a value of an unknown kind';
  }
}

/**
 * Asks `approve` and turns whatever happens into a decision: no approver (or one that is not a function),
 * a throw and a rejected promise are rejections. Only a native Promise that `approve` returns is awaited;
 * any other value, a thenable included, is read as it is (by its own fields). Never rejects, except with the run's own pause
 * (`RunPaused`) or a resume that does not match its state (`RunStateError`), which end the run.
 */
export async function askApprover(
  request: ApprovalRequest,
  approve: ApproveFn | undefined,
  { mayPause = false }: { mayPause?: boolean } = {},
): Promise<ApprovalDecision> {
  if (approve === undefined)
    return { type: 'reject', reason: 'no one was asked to approve actions with side effects' };
  let answer: unknown;
  try {
    const returned: unknown = approve(request);
    // Only a native Promise is awaited: `await` on any other thenable would call its `then`, which could
    // answer something other than the object's own `type`. Kept in a variable, never returned from an
    // async function, which would adopt it too. (An `async` approver that returns a thenable still has it
    // adopted by the Promise machinery before we see it; that cannot be helped here.)
    answer = returned instanceof Promise ? await returned : returned;
  } catch (error) {
    if (error instanceof RunPaused || error instanceof RunStateError) throw error;
    return { type: 'reject', reason: `approval failed: ${safeMessage(error)}` };
  }
  // A run that may pause ends `paused` on exactly `{ type: 'pause' }`; elsewhere it is a rejection.
  if (mayPause && isPauseAnswer(answer)) throw new RunPaused([pendingOf(request)]);
  return toApprovalDecision(answer);
}

/** The message of a thrown value, even when reading it throws again (a hostile getter or proxy). */
function safeMessage(error: unknown): string {
  try {
    return errorMessage(error).slice(0, MAX_REASON_CHARS);
  } catch {
    return 'the approver threw something that cannot be read';
  }
}

/**
 * True when `allowTools` lets `tool` run without asking: exactly `'all'`, or an array holding exactly the
 * name. Any other value (a string of names, `true`, an object) allows nothing.
 */
export function isAllowedWithoutAsking(tool: string, allowTools: unknown): boolean {
  // Callers pass the options' own `allowTools` (`ownField`): an inherited one allows nothing.
  if (allowTools === 'all') return true;
  return Array.isArray(allowTools) && allowTools.some((name) => name === tool);
}

/** The approval request as plain data. */
export function pendingOf(request: ApprovalRequest): PendingApprovalRequest {
  const { id, step, tool, input, effects } = request;
  return { id, step, tool, input, effects };
}

/**
 * Exactly `{ type: 'pause' }` (an own data property); anything else, one that cannot be read (a throwing
 * proxy) included, is read as a decision, which fails closed.
 */
function isPauseAnswer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const descriptor = Object.getOwnPropertyDescriptor(value, 'type');
    return descriptor !== undefined && 'value' in descriptor && descriptor.value === 'pause';
  } catch {
    return false;
  }
}
