/**
 * One run, set up once by {@link startRun}: its settings, its limits, its parent (a nested agent's), its
 * effects, and the trajectory the loop (`loop.ts`) builds; and its result ({@link finish}).
 *
 * @module
 */
import { ENGLISH_LABELS, type LabelSet } from '../react/labels.js';
import { createToolRouter, type ToolOutcome, type ToolRouter, toolNeedsApproval } from '../tools/router.js';
import type { Tool } from '../tools/types.js';
import { anySignal, ownField, timeoutSignal } from '../util/own.js';
import { abortedMessage } from '../util/signal.js';
import { askApprover, isAllowedWithoutAsking, pendingOf } from './approval.js';
import { Budget } from './budget.js';
import { conversationAfter, readConversation, summarizeTrajectory } from './conversation.js';
import { directEffects, journaledEffects, RecordedEffects, type RunEffects } from './effects.js';
import { AgentConfigError } from './errors.js';
import { newRunId } from './ids.js';
import type { StopSequenceState } from './model-call.js';
import type { RunSettings } from './options.js';
import { checkpointer, pausingApprover, type Resume } from './pause.js';
import { secretProblem } from './pause-state.js';
import { RepeatTracker } from './repeats.js';
import { planRequests, type RequestPlan } from './request.js';
import type { AgentEvent, PendingApprovalRequest, RunResult, Step, StopReason } from './types.js';

/** Default for `AgentConfig.maxSteps`. */
export const DEFAULT_MAX_STEPS = 8;

/** The settings as the loop reads them: labels and the run's id decided, the signal the run's own. */
export type RunOptions = RunSettings & { labels: LabelSet; runId: string };

/** The run a nested agent (`agentTool`) runs in: the parent run and which of its tool calls runs it. */
export interface ParentLink {
  /** The parent run: its signal, budget, effects, id and streaming reach the nested run. */
  run: Run;
  /** The parent's step (1-based) and the tool call of that step (1-based) that runs the nested agent. */
  step: number;
  call: number;
  /** The agent tool's name. */
  name: string;
}

/**
 * The property of a tool that runs a nested agent (`agentTool`): `act` runs such a tool as a generator
 * with its parent run, so the nested run's events reach the parent's stream and it shares the parent's
 * budget, effects and signal, instead of getting a plain tool context.
 */
export const NESTED_RUNNER: unique symbol = Symbol('taoloop.nestedRunner');

/** Runs a nested agent on `input`, yielding its events (wrapped as `agent-event`), returning the outcome. */
export type NestedRunner = (
  input: string,
  parent: Omit<ParentLink, 'name'>,
) => AsyncGenerator<AgentEvent, ToolOutcome>;

/** The nested runner of `tool`, when it is an agent tool. */
export function nestedRunnerOf(tool: Tool): NestedRunner | undefined {
  const runner = (tool as { [NESTED_RUNNER]?: unknown })[NESTED_RUNNER];
  return typeof runner === 'function' ? (runner as NestedRunner) : undefined;
}

/** One run: set up once by {@link startRun}, then read and updated by the loop. */
export interface Run {
  readonly settings: RunOptions;
  readonly question: string;
  readonly plan: RequestPlan;
  readonly router: ToolRouter;
  /** Tokens and cost spent, checked before each model call; a nested run's checks its parent's too. */
  readonly budget: Budget;
  /** The one seam for the run's side effects (`effects.ts`). */
  readonly effects: RunEffects;
  /** A resumed run's state and the decisions still to give (`pause.ts`). */
  readonly resume: Resume | undefined;
  readonly repeats: RepeatTracker;
  /** Whether requests still carry stop sequences (a server that rejects them turns this off). */
  readonly stopState: StopSequenceState;
  /** The trajectory: the single source of truth for the prompt, the trace and the result. */
  readonly steps: Step[];
  /** The signal from outside the run: the caller's, and a parent run's. */
  readonly outerSignal: AbortSignal | undefined;
  /** The run's own clock (`timeoutMs`), cleared however the run ends. */
  readonly clock: ReturnType<typeof timeoutSignal> | undefined;
  readonly startedMs: number;
  /** Steps whose turn was an action (what `maxSteps` counts). */
  actionSteps: number;
  /** Format errors in a row (what `maxConsecutiveFormatErrors` counts). */
  formatErrors: number;
  /** Answers refused by `output` or `checkAnswer` (what `maxAnswerCorrections` counts). */
  refusedAnswers: number;
  /** Set while making the last call `forceFinalAnswer` asks for: the limit that ends the run otherwise. */
  forcing?: Limit;
}

/** A limit that stops the run before the next model call. */
export interface Limit {
  status: StopReason;
  error?: string;
}

/** What a run's result adds to its status. */
export interface FinishExtra {
  answer?: string;
  error?: string;
  output?: unknown;
  forced?: boolean;
  pending?: PendingApprovalRequest[];
}

/**
 * Sets a run up: its id, labels, signal (the caller's, its own clock and a parent's), conversation,
 * request plan, router, budget (under a parent's), and effects, picked once here:
 *
 * - a nested agent's are its parent's, under the name of the parent's tool call;
 * - with a `journal`, {@link journaledEffects};
 * - for a resume, with `pauseForApproval`, or when `approve` may be asked (some tool needs approval and is
 *   not in `allowTools`) and so may pause the run, {@link RecordedEffects};
 * - else {@link directEffects}: an ordinary run records nothing.
 *
 * Options that grant permission are read as own properties (`runSettings` copied only those).
 *
 * @throws {AgentConfigError} for options that cannot work together.
 */
export function startRun(settings: RunSettings, link: { resume?: Resume; parent?: ParentLink } = {}): Run {
  const { resume, parent } = link;
  const startedMs = performance.now();
  const journal = ownField(settings, 'journal');
  const pauseForApproval = ownField(settings, 'pauseForApproval') === true;
  const onCheckpoint = ownField(settings, 'onCheckpoint');
  if (journal !== undefined && (pauseForApproval || resume || onCheckpoint !== undefined)) {
    throw new AgentConfigError(
      'Pause and resume (`durable.pauseForApproval`, `durable.onCheckpoint`, `resumeAgent`) cannot be combined with a `durable.journal`: a durable engine (Restate) waits for approvals and keeps progress itself. Use one or the other.',
    );
  }
  const secret = ownField(settings, 'secret');
  const problem = secret === undefined ? undefined : secretProblem(secret);
  if (problem !== undefined) throw new AgentConfigError(problem);
  if (onCheckpoint !== undefined && (typeof onCheckpoint !== 'function' || secret === undefined)) {
    throw new AgentConfigError(
      '`durable.onCheckpoint` must be a function, given with `durable.secret`: a checkpoint carries decisions already given, so only a signed one can be resumed.',
    );
  }
  const callCap = settings.maxToolCallsPerStep;
  if (callCap !== undefined && !(Number.isInteger(callCap) && callCap >= 1)) {
    throw new AgentConfigError(
      `\`limits.maxToolCallsPerStep\` must be a whole number of at least 1 (the most tool calls of one step that run), not ${typeof callCap === 'string' ? JSON.stringify(callCap) : String(callCap)}.`,
    );
  }
  const clock = settings.timeoutMs === undefined ? undefined : timeoutSignal(settings.timeoutMs);
  const parentSignal = parent?.run.settings.signal;
  const outerSignal = anySignal(settings.signal, parentSignal);
  const signal = anySignal(outerSignal, clock?.signal);
  const labels = settings.labels ?? ENGLISH_LABELS;
  // The run's ID is in each tool call's `callId`; a durable engine passes one that survives a restart.
  const runId = parent
    ? `${parent.run.settings.runId}/step-${parent.step}/call-${parent.call}/${parent.name}`
    : (resume?.state.runId ?? settings.runId ?? newRunId());
  const input: Pick<RunSettings, 'question' | 'messages'> = resume
    ? { messages: resume.state.messages }
    : settings;
  const { question: _q, messages: _m, ...rest } = settings;
  const options: RunOptions = {
    ...rest,
    ...(input.question !== undefined && { question: input.question }),
    ...(input.messages !== undefined && { messages: input.messages }),
    labels,
    runId,
    ...(signal && { signal }),
    ...(settings.streaming === undefined &&
      parent?.run.settings.streaming !== undefined && { streaming: parent.run.settings.streaming }),
  };
  try {
    const conversation = readConversation(options);
    const router = createToolRouter(options.tools);
    return {
      settings: options,
      question: conversation.question,
      plan: planRequests(options, labels, options.tools, conversation),
      router,
      budget: new Budget(options, parent?.run.budget),
      effects: parent
        ? parent.run.effects.scoped(`step-${parent.step}-call-${parent.call}-${parent.name}/`)
        : pickEffects(options, router, resume),
      resume,
      repeats: new RepeatTracker(options.maxRepeatedActions ?? 3),
      stopState: { send: true },
      steps: [],
      outerSignal,
      clock,
      startedMs,
      actionSteps: 0,
      formatErrors: 0,
      refusedAnswers: 0,
    };
  } catch (error) {
    // A caller mistake found here stops the run before it starts: its clock must not keep the process up.
    clock?.clear();
    throw error;
  }
}

/** The effects of a run that is not nested (see {@link startRun}). */
function pickEffects(options: RunOptions, router: ToolRouter, resume: Resume | undefined): RunEffects {
  const approve = ownField(options, 'approve');
  const ask = (request: Parameters<typeof askApprover>[0]) => askApprover(request, approve);
  const journal = ownField(options, 'journal');
  if (journal !== undefined) return journaledEffects(journal, ask);
  const pauseForApproval = ownField(options, 'pauseForApproval') === true;
  const allowTools = ownField(options, 'allowTools');
  // An agent tool asks for no approval itself, but its tools may ask this run's `approve` (whatever this
  // run's `allowTools` says of the agent tool: its own tools are allowed by its own).
  const mayAsk = router.tools.some(
    (tool) =>
      nestedRunnerOf(tool) !== undefined ||
      (toolNeedsApproval(tool) && !isAllowedWithoutAsking(tool.name, allowTools)),
  );
  const onCheckpoint = ownField(options, 'onCheckpoint');
  if (!resume && !pauseForApproval && onCheckpoint === undefined && !(approve !== undefined && mayAsk))
    return directEffects(ask);
  const asksTogether = pauseForApproval || resume?.state.approvalsTogether === true;
  const messages = resume?.state.messages ?? conversationAfter(options, undefined, undefined);
  const secret = ownField(options, 'secret');
  return new RecordedEffects({
    approver: pausingApprover(approve, pauseForApproval, resume),
    asksTogether,
    replay: resume?.state.journal,
    beforeLive: resume && ((name) => resume.checkLive(name)),
    // Only a checkpoint (signed) records the approvals its pending requests got; a paused state never does.
    replayedApproval: resume?.state.checkpoint ? (request) => resume.passed(pendingOf(request)) : undefined,
    // A paused state's resume saves its decisions before its first new effect; a checkpoint holds them.
    checkpointed: resume && !resume.state.checkpoint ? -1 : (resume?.state.journal.length ?? 0),
    checkpoint:
      onCheckpoint && secret !== undefined
        ? checkpointer(
            onCheckpoint,
            { runId: options.runId, messages, secret, asksTogether, signal: options.signal },
            resume,
          )
        : undefined,
  });
}

/** The run's result with a stop reason. */
export function finish(run: Run, status: StopReason, extra: FinishExtra = {}): RunResult {
  const { settings, steps, budget } = run;
  const trajectory = settings.earlierTrajectories === 'summary' ? summarizeTrajectory(steps) : undefined;
  return {
    status,
    ...extra,
    question: run.question,
    messages: conversationAfter(settings, extra.answer, trajectory),
    modelId: settings.model.id,
    steps,
    usage: budget.usage,
    usageByModel: budget.usageByModel,
    ...(budget.costUsd !== undefined && { costUsd: budget.costUsd }),
    durationMs: Math.round(performance.now() - run.startedMs),
  };
}

/** The result of a run stopped by its signal: `budget` when its own clock ran out, `aborted` otherwise. */
export function stopped(run: Run): RunResult {
  const { clock, outerSignal, settings } = run;
  return clock?.signal.aborted && !outerSignal?.aborted
    ? finish(run, 'budget', { error: `time budget: the run took longer than ${settings.timeoutMs} ms.` })
    : finish(run, 'aborted', { error: abortedMessage(outerSignal) });
}
