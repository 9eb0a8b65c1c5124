/**
 * Pause and resume. A run that reaches a tool call needing approval, with `pauseForApproval` (or an
 * `approve` that answers `{ type: 'pause' }`), ends `paused` with the request and a {@link RunState} built
 * from the journal of its completed side effects. A resumed run is the same loop over the same options with
 * that journal replayed (`pause-journal.ts`): every recorded model turn, approval and tool observation is
 * given back instead of made again, and the first new effect is the decision on the pending request.
 *
 * The events of a resumed run start there too: what was replayed was already seen when the run paused
 * (it is in `result.steps`, though). The same journal seam serves Restate, which makes runs durable
 * against crashes; the two are not combined (a durable run waits for approvals itself).
 *
 * @module
 */

import { errorMessage, ownField } from '../util/own.js';
import { PAUSES_EVERY_REQUEST, toApprovalDecision } from './approval.js';
import { conversationAfter } from './conversation.js';
import { newRunId } from './durable.js';
import { AgentConfigError } from './errors.js';
import { RunPaused, RunStateError } from './pause-errors.js';
import { newRecorder } from './pause-journal.js';
import { canonicalJson, openState, sealState } from './pause-state.js';
import type {
  AgentEvent,
  AgentOptions,
  ApprovalDecision,
  ApprovalRequest,
  ApproveFn,
  PendingApprovalRequest,
  RunResult,
  RunState,
} from './types.js';

/** A resume as given: the stored state and the decisions, not yet checked. */
export interface ResumeInput {
  state: unknown;
  decisions: unknown;
}

type Loop = (options: AgentOptions) => AsyncGenerator<AgentEvent, RunResult>;

/**
 * The loop, able to pause (and to resume when `resume` is given). A run that cannot pause (no
 * `pauseForApproval`, no `approve` to answer `pause`, or a durable `journal`) is the loop itself.
 *
 * @throws {AgentConfigError} for `pauseForApproval` or a resume together with a `journal`.
 */
export function pausable(
  loop: Loop,
  options: AgentOptions,
  resume?: ResumeInput,
): AsyncGenerator<AgentEvent, RunResult> {
  // Options that grant or withhold permission are read as own properties: inherited ones count as absent.
  const pausing = ownField(options, 'pauseForApproval') === true || resume !== undefined;
  if (ownField(options, 'journal') !== undefined) {
    if (pausing) {
      throw new AgentConfigError(
        'Pause and resume (`pauseForApproval`, `resumeAgent`) cannot be combined with a `journal`: a durable engine (Restate) waits for approvals itself. Use one or the other.',
      );
    }
    return loop(options);
  }
  if (!pausing && ownField(options, 'approve') === undefined) return loop(options);
  return pausableRun(loop, options, resume);
}

async function* pausableRun(
  loop: Loop,
  options: AgentOptions,
  input: ResumeInput | undefined,
): AsyncGenerator<AgentEvent, RunResult> {
  const resume = input && (await openResume(options, input));
  const recorder = newRecorder(resume?.state.journal, (name) => resume?.checkLive(name));
  const runId = resume?.state.runId ?? options.runId ?? newRunId();
  const { question, messages, ...rest } = options;
  const conversation = resume
    ? { messages: resume.state.messages }
    : { ...(question !== undefined && { question }), ...(messages !== undefined && { messages }) };
  const run = loop({
    ...rest,
    ...conversation,
    runId,
    journal: recorder.journal,
    approve: pausingApprover(options, resume),
  });
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<AgentEvent, RunResult>;
      try {
        next = await run.next();
      } catch (error) {
        throw recorder.broken ?? error;
      }
      if (next.done) {
        finished = true;
        return next.value;
      }
      const event = next.value;
      if (event.type === 'run-end') {
        const { result } = event;
        if (recorder.broken) throw recorder.broken;
        if (resume?.waiting) {
          throw new RunStateError(
            'mismatch',
            `The resumed run ended (${result.status}) before it reached the approval it paused on: resume with the same model, tools and options as the run that paused.`,
          );
        }
        if (result.status === 'paused') {
          const pending = result.pending ?? [];
          const body = {
            runId,
            messages: result.messages,
            journal: recorder.completed(),
            pending,
            ...(batchesApprovals(options, resume) && { approvalsTogether: true as const }),
          };
          const state = await sealState(
            { ...body, pausedAt: new Date().toISOString() },
            ownField(options, 'secret'),
          );
          result.state = state;
          yield { type: 'run-pause', pending, state };
        }
      } else if (resume && !recorder.live && event.type !== 'run-start') {
        continue; // replayed: seen when the run paused
      }
      yield event;
    }
  } finally {
    if (!finished) await run.return(undefined as never);
  }
}

/** The approval request as plain data. */
function pendingOf(request: ApprovalRequest): PendingApprovalRequest {
  const { id, step, tool, input, effects } = request;
  return { id, step, tool, input, effects };
}

/**
 * Decides approvals of a run that may pause: the pending requests of a resumed run get their decisions; else
 * `pauseForApproval` pauses, and `approve` is asked (its `{ type: 'pause' }` pauses). Pausing throws
 * {@link RunPaused}, which ends the run `paused`; whatever else comes back is read by the loop, failing closed.
 * When {@link batchesApprovals}, the approver is marked {@link PAUSES_EVERY_REQUEST}: a native step's approvals are then asked together, so the run pauses once
 * per step; `approve` is asked one request at a time, each call running before the next is asked.
 */
function pausingApprover(options: AgentOptions, resume: Resume | undefined): ApproveFn {
  const pauseForApproval = ownField(options, 'pauseForApproval') === true;
  const approve = ownField(options, 'approve');
  const approver: ApproveFn & { [PAUSES_EVERY_REQUEST]?: true } = async (request) => {
    const pending = pendingOf(request);
    if (resume?.waiting) return resume.decide(pending);
    if (pauseForApproval) throw new RunPaused([pending]);
    if (approve === undefined)
      return { type: 'reject', reason: 'no one was asked to approve actions with side effects' };
    const returned: unknown = approve(request);
    // Only a native Promise is awaited, as in `askApprover`: a thenable is read by its own fields. The
    // answer is turned into a fresh decision here, since returning the thenable itself from this async
    // function would adopt it (call its `then`).
    const answer = returned instanceof Promise ? await returned : returned;
    if (isPauseAnswer(answer)) throw new RunPaused([pending]);
    return toApprovalDecision(answer);
  };
  if (batchesApprovals(options, resume)) approver[PAUSES_EVERY_REQUEST] = true;
  return approver;
}

/**
 * Whether a native step's approvals are asked together: with `pauseForApproval`, and on resuming a run that
 * paused so (its state says `approvalsTogether`), since the replay must ask in the order the run did. A run
 * that `approve` paused asked one request at a time, and its resume does too, with or without `approve`.
 */
function batchesApprovals(options: AgentOptions, resume: Resume | undefined): boolean {
  return ownField(options, 'pauseForApproval') === true || resume?.state.approvalsTogether === true;
}

/** Exactly `{ type: 'pause' }` (an own data property); anything else is read as a decision. */
function isPauseAnswer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const descriptor = Object.getOwnPropertyDescriptor(value, 'type');
  return descriptor !== undefined && 'value' in descriptor && descriptor.value === 'pause';
}

/** A checked resume: the state, and the decisions still to give. */
interface Resume {
  state: RunState;
  /** True until the pending requests got their decisions. */
  readonly waiting: boolean;
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
export async function openResume(options: AgentOptions, input: ResumeInput): Promise<Resume> {
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
  const decisions = readDecisions(state.pending, input.decisions);
  return {
    state,
    get waiting() {
      return decisions.size > 0;
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
