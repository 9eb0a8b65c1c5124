/**
 * A paused run's {@link RunState}: written (and signed, with a secret) when the run pauses, checked before
 * a resume. Signing uses Web Crypto (`crypto.subtle`, HMAC-SHA256), so it works wherever the core does.
 * The signature covers the state's JSON with keys sorted, so a state stored where key order is not kept
 * (e.g. PostgreSQL `jsonb`) still verifies.
 *
 * @module
 */

import { errorMessage } from '../util/own.js';
import { readConversation } from './conversation.js';
import { RunStateError } from './errors.js';
import {
  type PendingApprovalRequest,
  RUN_STATE_VERSION,
  type RunJournalEntry,
  type RunState,
} from './types.js';

const FORMAT = 'taoloop-run-state';
const SIGNATURE_PREFIX = 'hmac-sha256:';
/** Shortest secret accepted, in characters. */
export const MIN_SECRET_CHARS = 32;

/** What a state records; everything but the format marker, the version and the signature. */
export type RunStateBody = Pick<
  RunState,
  'runId' | 'messages' | 'journal' | 'pending' | 'pausedAt' | 'approvalsTogether' | 'checkpoint' | 'decisions'
>;

/** The state of a run that pauses now, signed when there is a secret. */
export async function sealState(body: RunStateBody, secret: string | undefined): Promise<RunState> {
  const state: RunState = { format: FORMAT, version: RUN_STATE_VERSION, ...body };
  if (secret === undefined) return state;
  return { ...state, signature: await sign(state, secret) };
}

/**
 * Checks a stored state (format, version, signature, shape) and returns it: a copy taken once, as JSON
 * data, before anything is checked, so what was checked (and signed) is what the run uses, whatever the
 * object given does between two reads (getters, proxies).
 * @throws {RunStateError} saying what is wrong.
 */
export async function openState(given: unknown, secret: string | undefined): Promise<RunState> {
  const value = snapshot(given);
  if (!isRecord(value) || value.format !== FORMAT) {
    throw new RunStateError(
      'format',
      'This is not a taoloop run state: pass `result.state` of a paused run (status "paused"), as stored.',
    );
  }
  if (value.version !== RUN_STATE_VERSION) {
    throw new RunStateError(
      'version',
      `This run state is version ${JSON.stringify(value.version)}; this taoloop reads version ${RUN_STATE_VERSION} only. Resume it with the taoloop version that paused it, or start the run again.`,
    );
  }
  const { signature, ...unsigned } = value;
  if (value.checkpoint !== undefined && (secret === undefined || signature === undefined)) {
    throw new RunStateError(
      'unsigned',
      'This run state is a checkpoint, which carries decisions already given: it is resumed only signed, with the `durable.secret` it was signed with.',
    );
  }
  if (secret === undefined && signature !== undefined) {
    throw new RunStateError(
      'unsigned',
      'This run state is signed: pass the `durable.secret` it was signed with.',
    );
  }
  if (secret !== undefined) {
    if (typeof signature !== 'string') {
      throw new RunStateError(
        'unsigned',
        'This run state is not signed, and a `durable.secret` was given: only a state signed with that secret is resumed.',
      );
    }
    if (!(await verify(unsigned, signature, secret))) {
      throw new RunStateError(
        'signature',
        'The run state does not match its signature: it was changed after the run paused, or signed with another secret. It is refused.',
      );
    }
  }
  return checkShape(value);
}

/**
 * The state as JSON data, read once (`JSON.parse(JSON.stringify(given))`).
 * @throws {RunStateError} for a value that is not JSON data (a cycle, a `bigint`, a getter that throws).
 */
function snapshot(given: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(given);
  } catch (error) {
    throw new RunStateError(
      'format',
      `This run state cannot be read as JSON data (${errorMessage(error)}): pass \`result.state\` of a paused run as stored (JSON.parse of what was saved).`,
    );
  }
  return text === undefined ? undefined : JSON.parse(text);
}

/** The state's fields, checked; a state from outside is data and is not trusted to be well formed. */
function checkShape(value: Record<string, unknown>): RunState {
  const bad = (what: string) => new RunStateError('format', `Malformed run state: ${what}.`);
  const { runId, messages, journal, pending, pausedAt, approvalsTogether, checkpoint, decisions } = value;
  if (typeof runId !== 'string' || runId === '') throw bad('"runId" must be a non-empty string');
  if (typeof pausedAt !== 'string') throw bad('"pausedAt" must be a string');
  if (approvalsTogether !== undefined && approvalsTogether !== true)
    throw bad('"approvalsTogether" must be true or absent');
  if (
    !Array.isArray(journal) ||
    !journal.every((e) => isRecord(e) && typeof e.name === 'string' && 'value' in e)
  )
    throw bad('"journal" must be a list of { name, value } records');
  if (checkpoint !== undefined && checkpoint !== true) throw bad('"checkpoint" must be true or absent');
  if (!Array.isArray(pending) || (pending.length === 0 && !checkpoint) || !pending.every(isPending))
    throw bad('"pending" must list the approvals the run waits for ({ id, step, tool, input, effects })');
  if (decisions !== undefined && (!checkpoint || !isRecord(decisions)))
    throw bad('"decisions" must be an object, in a checkpoint only');
  try {
    readConversation({ messages: messages as never });
  } catch (error) {
    throw bad(`"messages" is not a conversation (${(error as Error).message})`);
  }
  checkApprovals(journal as RunJournalEntry[], bad);
  return value as unknown as RunState;
}

/**
 * Whether `journal` may be a state's: every recorded approval that lets a call run is followed by that call
 * (see {@link checkApprovals}). A checkpoint is taken only then.
 */
export function approvalsClosed(journal: readonly RunJournalEntry[]): boolean {
  try {
    checkApprovals(journal, (what) => new RunStateError('format', what));
    return true;
  } catch {
    return false;
  }
}

/**
 * A recorded approval that lets a tool run is followed by that tool call: a state cannot hold an approval
 * whose tool call has not happened, which a resume would run without anyone deciding again. A native step's
 * approvals asked together (`pauseForApproval`) come before its tool calls, so each approval counts the
 * approvals of its step that follow it: that many of the step's tool calls must follow too (unless the run
 * paused inside a nested agent of that step, before the step's remaining calls ran). A nested agent's
 * (`agentTool`) approvals are held to the same rule within its own scope (`step-2-call-1-<name>/step-1-approval`
 * needs a following `step-2-call-1-<name>/step-1-tool`). Where the run paused before the approved call ran
 * (inside a nested agent of an earlier call of the step), the state reads exactly as one where the person
 * approved it: only a signature (`secret`) tells an edited decision from one given. A state that went on
 * past a call without running it is also refused by the replay (`RecordedEffects`, in `effects.ts`), whose
 * names must follow the run's own order: an approved call's tool call comes before anything the run did after
 * it.
 */
function checkApprovals(journal: readonly RunJournalEntry[], bad: (what: string) => RunStateError): void {
  // The approval's step with its nested scope (`step-2-call-1-helper/step-1`), or undefined.
  const approvalStep = (entry: RunJournalEntry) => {
    const match = /^((?:[^/]*\/)*)(step-\d+)-approval$/.exec(entry.name);
    return match ? `${match[1]}${match[2]}` : undefined;
  };
  journal.forEach((entry, i) => {
    const step = approvalStep(entry);
    if (step === undefined || !isRecord(entry.value) || entry.value.type === 'reject') return;
    const rest = journal.slice(i + 1);
    const approvals = rest.filter(
      (e) => approvalStep(e) === step && isRecord(e.value) && e.value.type !== 'reject',
    ).length;
    const tools = rest.filter((e) => e.name === `${step}-tool`).length;
    const nested = rest.some((e) => e.name.startsWith(`${step}-call-`));
    if (tools <= approvals && !nested)
      throw bad(`the approval ${entry.name} is not followed by its tool call`);
  });
}

function isPending(value: unknown): value is PendingApprovalRequest {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.step === 'number' &&
    typeof value.tool === 'string' &&
    typeof value.input === 'string' &&
    typeof value.effects === 'string'
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted at every level: the same text for the same data, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (isRecord(value)) {
    const fields = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What is wrong with `secret` as a signing secret, or `undefined` when it can sign. */
export function secretProblem(secret: unknown): string | undefined {
  return typeof secret === 'string' && secret.length >= MIN_SECRET_CHARS
    ? undefined
    : `The \`durable.secret\` must be a string of at least ${MIN_SECRET_CHARS} characters (e.g. 32 random bytes, base64).`;
}

async function hmacKey(secret: string): ReturnType<typeof crypto.subtle.importKey> {
  const problem = secretProblem(secret);
  if (problem !== undefined) throw new RunStateError('unsigned', problem);
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    throw new RunStateError(
      'unsigned',
      'Signing a run state needs Web Crypto (`crypto.subtle`), which this runtime does not offer (browsers offer it only on https pages).',
    );
  }
  return subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

async function sign(state: unknown, secret: string): Promise<string> {
  const key = await hmacKey(secret);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(canonicalJson(state)));
  return SIGNATURE_PREFIX + toBase64Url(new Uint8Array(mac));
}

/** Checks the signature in constant time (`crypto.subtle.verify`). */
async function verify(state: unknown, signature: string, secret: string): Promise<boolean> {
  const key = await hmacKey(secret);
  if (!signature.startsWith(SIGNATURE_PREFIX)) return false;
  const mac = fromBase64Url(signature.slice(SIGNATURE_PREFIX.length));
  if (mac === undefined) return false;
  return crypto.subtle.verify('HMAC', key, mac, new TextEncoder().encode(canonicalJson(state)));
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
