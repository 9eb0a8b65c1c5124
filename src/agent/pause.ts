/**
 * Pause and resume. A run that reaches a tool call needing approval, with `durable.pauseForApproval` (or an
 * `approve` that answers `{ type: 'pause' }`), ends `paused` with the request and a {@link RunState} built
 * from the journal of its completed side effects. A resumed run is the same loop over the same options with
 * that journal replayed ({@link RecordedEffects}, in `effects.ts`): every recorded model turn, approval and
 * tool observation is given back instead of made again, and the first new effect is the decision on the
 * pending request.
 *
 * The events of a resumed run start there too: what was replayed was already seen when the run paused
 * (it is in `result.steps`, though). The same seam (`run.effects`) serves Restate, which makes runs
 * durable against crashes; the two are not combined (a durable run waits for approvals itself).
 *
 * @module
 */

import { errorMessage, ownField } from '../util/own.js';
import { askApprover, pendingOf, toApprovalDecision } from './approval.js';
import type { AgentMessage } from './conversation.js';
import { conversationAfter } from './conversation.js';
import { type Approver, RecordedEffects, type RunEffects } from './effects.js';
import { RunPaused, RunStateError } from './errors.js';
import type { RunSettings } from './options.js';
import { approvalsClosed, canonicalJson, openState, sealState } from './pause-state.js';
import type {
  AgentEvent,
  ApprovalDecision,
  ApproveFn,
  PendingApprovalRequest,
  RunJournalEntry,
  RunResult,
  RunState,
} from './types.js';

/** A resume as given: the stored state and the decisions, not yet checked. */
export interface ResumeInput {
  state: unknown;
  decisions: unknown;
}

/**
 * Ends a run that may pause, at its `run-end`: a run whose replay broke, or that ended before reaching the
 * approval it paused on, throws {@link RunStateError}; a run that paused gets its {@link RunState} (set on
 * `result.state`, signed with `secret`) and the `run-pause` event to pass on before `run-end`.
 *
 * @throws {RunStateError} when the resumed run did not follow the paused one.
 */
export async function finishPause(
  run: {
    effects: RunEffects;
    resume: Resume | undefined;
    settings: { runId: string } & Pick<RunSettings, 'secret'>;
  },
  result: RunResult,
): Promise<AgentEvent | undefined> {
  const { effects, resume } = run;
  if (effects instanceof RecordedEffects && effects.broken) throw effects.broken;
  if (resume?.waiting) {
    throw new RunStateError(
      'mismatch',
      `The resumed run ended (${result.status}) before it reached the approval it paused on: resume with the same model, tools and options as the run that paused.`,
    );
  }
  if (result.status !== 'paused' || !(effects instanceof RecordedEffects)) return undefined;
  const pending = result.pending ?? [];
  const body = {
    runId: run.settings.runId,
    messages: result.messages,
    journal: effects.completed(),
    pending,
    ...(effects.asksTogether && { approvalsTogether: true as const }),
  };
  const state = await sealState(
    { ...body, pausedAt: new Date().toISOString() },
    ownField(run.settings, 'secret'),
  );
  result.state = state;
  return { type: 'run-pause', pending, state };
}

/**
 * What hands a run's completed effects to `durable.onCheckpoint` as a signed checkpoint ({@link RunState}
 * with `checkpoint: true`): the conversation the run started from, the journal, and a resumed run's pending
 * requests with the decisions it was given. A journal holding an approval whose call has not run yet is
 * not a state (`approvalsClosed`): it is skipped, and the next one is saved.
 *
 * @returns whether the checkpoint was saved.
 */
export function checkpointer(
  onCheckpoint: (checkpoint: RunState) => void | Promise<void>,
  run: {
    runId: string;
    messages: AgentMessage[];
    secret: string;
    asksTogether: boolean;
    signal?: AbortSignal | undefined;
  },
  resume: Resume | undefined,
): (journal: RunJournalEntry[]) => Promise<boolean> {
  return async (journal) => {
    if (!approvalsClosed(journal)) return false;
    const checkpoint = await sealState(
      {
        runId: run.runId,
        messages: run.messages,
        journal,
        pending: resume?.state.pending ?? [],
        ...(resume && { decisions: { ...resume.decisions } }),
        pausedAt: new Date().toISOString(),
        checkpoint: true,
        ...(run.asksTogether && { approvalsTogether: true as const }),
      },
      run.secret,
    );
    // The run's signal (its caller's, its `timeoutMs`) ends the wait for a callback that never settles: the
    // checkpoint does not count as stored, and the run stops as it does on any abort.
    return untilAborted(Promise.resolve(onCheckpoint(checkpoint)), run.signal);
  };
}

/** `true` once `work` resolves, `false` if `signal` aborts first; rejects as `work` does. */
function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal === undefined) return work.then(() => true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Decides approvals of a run that may pause: the pending requests of a resumed run get their decisions; else
 * `pauseForApproval` pauses, and `approve` is asked (its `{ type: 'pause' }` pauses). Pausing throws
 * {@link RunPaused}, which ends the run `paused`; whatever else comes back is read by the loop, failing closed.
 */
export function pausingApprover(
  approve: ApproveFn | undefined,
  pauseForApproval: boolean,
  resume: Resume | undefined,
): Approver {
  return async (request) => {
    if (resume?.waiting) return resume.decide(pendingOf(request));
    if (pauseForApproval) throw new RunPaused([pendingOf(request)]);
    return askApprover(request, approve, { mayPause: true });
  };
}

/** A checked resume: the state, and the decisions still to give. */
export interface Resume {
  state: RunState;
  /** The decisions given for the state's pending requests (a checkpoint's own), each read failing closed. */
  readonly decisions: Readonly<Record<string, ApprovalDecision>>;
  /** True until the pending requests got their decisions. */
  readonly waiting: boolean;
  /**
   * A pending request's approval given back from the journal (a checkpoint recorded it): its decision was
   * already applied, so it is no longer waited for.
   */
  passed(request: PendingApprovalRequest): void;
  /** The decision for the request the resumed run asks about. @throws {RunStateError} when it is not the pending one. */
  decide(request: PendingApprovalRequest): ApprovalDecision;
  /** Called before each new effect. @throws {RunStateError} when it comes before the pending decisions. */
  checkLive(name: string): void;
}

/**
 * Checks a resume before anything runs: the state (format, version, signature), the conversation, and a
 * decision for each pending request and for nothing else.
 * @throws {RunStateError} saying what is wrong.
 */
export async function openResume(options: RunSettings, input: ResumeInput): Promise<Resume> {
  const state = await openState(input.state, ownField(options, 'secret'));
  if (options.question !== undefined || options.messages !== undefined) {
    const given = conversationAfter(options, undefined, undefined);
    if (canonicalJson(given) !== canonicalJson(state.messages)) {
      throw new RunStateError(
        'mismatch',
        'The state was paused on another conversation than the `question` / `messages` given: resume with the same ones, or without them (the state has the conversation).',
      );
    }
  }
  if (state.checkpoint && input.decisions !== undefined) {
    throw new RunStateError(
      'decision',
      'This run state is a checkpoint: it carries the decisions its resume was given. Resume it without `decisions`.',
    );
  }
  const decisions = readDecisions(
    state.pending,
    state.checkpoint ? (state.decisions ?? {}) : input.decisions,
  );
  const given = Object.fromEntries(decisions);
  return {
    state,
    decisions: given,
    get waiting() {
      return decisions.size > 0;
    },
    passed(request) {
      const expected = state.pending.find((p) => p.id === request.id);
      if (expected !== undefined && canonicalJson(expected) === canonicalJson(request))
        decisions.delete(request.id);
    },
    decide(request) {
      const expected = state.pending.find((p) => p.id === request.id);
      const decision = decisions.get(request.id);
      if (
        expected === undefined ||
        decision === undefined ||
        canonicalJson(expected) !== canonicalJson(request)
      ) {
        throw new RunStateError(
          'mismatch',
          `The resumed run asked to approve ${describeRequest(request)}, but the state waits for ${state.pending.map(describeRequest).join(', ')}: resume with the same model, tools and options as the run that paused.`,
        );
      }
      decisions.delete(request.id);
      return decision;
    },
    checkLive(name) {
      // A nested agent's (`agentTool`) approval is journaled under its parent's call: `step-2-call-1-<name>/step-1-approval`.
      if (decisions.size > 0 && !/^(?:step-\d+-call-\d+-[^/]+\/)*step-\d+-approval$/.test(name)) {
        throw new RunStateError(
          'mismatch',
          `The resumed run went past its recorded effects (${name}) before the approval it paused on: resume with the same model, tools and options as the run that paused.`,
        );
      }
    },
  };
}

/**
 * The decisions, one per pending request, each read like an approver's answer (failing closed).
 * @throws {RunStateError} for decisions that are not an object (or cannot be read: a throwing getter or
 * proxy), an id the state does not wait for, and a pending request without a decision.
 */
function readDecisions(
  pending: readonly PendingApprovalRequest[],
  value: unknown,
): Map<string, ApprovalDecision> {
  const ids = pending.map((p) => p.id);
  const expected = `it waits for ${ids.map((id) => JSON.stringify(id)).join(', ')}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RunStateError(
      'decision',
      `\`decisions\` must be an object keyed by pending request id; ${expected}.`,
    );
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(value);
  } catch (error) {
    // A getter or proxy that throws: nothing is decided, and the caller hears why.
    throw new RunStateError('decision', `\`decisions\` could not be read (${errorMessage(error)}).`);
  }
  const decisions = new Map<string, ApprovalDecision>();
  for (const [id, answer] of entries) {
    if (!ids.includes(id)) {
      throw new RunStateError(
        'decision',
        `A decision names ${JSON.stringify(id)}, which this paused run does not wait for (${expected}): a decision from an earlier pause or from another run is refused.`,
      );
    }
    decisions.set(id, toApprovalDecision(answer));
  }
  const missing = ids.filter((id) => !decisions.has(id));
  if (missing.length > 0) {
    throw new RunStateError(
      'decision',
      `No decision for ${missing.map((id) => JSON.stringify(id)).join(', ')}: give one for each pending request ({ type: 'approve' }, { type: 'reject', reason }, or { type: 'edit', input }).`,
    );
  }
  return decisions;
}

function describeRequest(request: PendingApprovalRequest): string {
  return `${request.tool}[${request.input.slice(0, 200)}] (step ${request.step}, ${request.id})`;
}
