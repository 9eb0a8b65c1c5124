/**
 * What the loop (`loop.ts`) keeps for one run, and the steps of a step that are not the paper's logic: the
 * set-up, the limits before a call, the model call through the journal seam, and reading a response into a
 * step. The loop decides every stop reason; these helpers only report what they found.
 *
 * @module
 */
import { ModelTimeoutError } from '../models/errors.js';
import type { ModelUsage } from '../models/types.js';
import { ENGLISH_LABELS, type LabelSet } from '../react/labels.js';
import { createToolRouter, type ToolRouter } from '../tools/router.js';
import { anySignal, errorMessage, timeoutSignal } from '../util/own.js';
import { abortedMessage } from '../util/signal.js';
import { Budget } from './budget.js';
import { conversationAfter, readConversation, summarizeTrajectory } from './conversation.js';
import { journaledTurn, newRunId } from './durable.js';
import { BudgetExceededError } from './errors.js';
import { type AnsweredBy, callWithFallbacks } from './fallback.js';
import { finalAnswerTurn } from './final-answer.js';
import { type PreparedCall, prepareCall } from './hooks.js';
import { nativeTurn } from './native.js';
import { recordedTurn, recorderOf } from './pause-journal.js';
import { RepeatTracker } from './repeats.js';
import { planRequests, type RequestPlan } from './request.js';
import { repairToolCalls } from './tool-repair.js';
import { maxTurnChars } from './turn-cap.js';
import { nativeStepText, readTextStep } from './turns.js';
import type {
  AgentEvent,
  AgentOptions,
  PendingApprovalRequest,
  RunResult,
  Step,
  StopReason,
} from './types.js';

/** Default for {@link AgentOptions.maxSteps}. */
export const DEFAULT_MAX_STEPS = 8;

/** The options as the loop reads them: the caller's, with labels and the run's own abort signal. */
export type RunOptions = AgentOptions & { labels: LabelSet; runId: string };

/** One run: set up once by {@link startRun}, then read and updated by the loop. */
export interface Run {
  readonly callerOptions: AgentOptions;
  readonly options: RunOptions;
  readonly question: string;
  readonly plan: RequestPlan;
  readonly router: ToolRouter;
  readonly budget: Budget;
  readonly repeats: RepeatTracker;
  /** Whether requests still carry stop sequences (a server that rejects them turns this off). */
  readonly stopState: { send: boolean };
  /** The trajectory: the single source of truth for the prompt, the trace and the result. */
  readonly steps: Step[];
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

/** Sets a run up: labels, the combined abort signal, a run ID, the request plan, the router and budgets. */
export function startRun(callerOptions: AgentOptions): Run {
  const startedMs = performance.now();
  const clock = callerOptions.timeoutMs === undefined ? undefined : timeoutSignal(callerOptions.timeoutMs);
  const signal = anySignal(callerOptions.signal, clock?.signal);
  const labels = callerOptions.labels ?? ENGLISH_LABELS;
  // The run's ID is in each tool call's `callId`; a durable engine passes one that survives a restart.
  const runId = callerOptions.runId ?? newRunId();
  const options: RunOptions = { ...callerOptions, labels, runId, ...(signal && { signal }) };
  const conversation = readConversation(callerOptions);
  const budget = new Budget(options);
  budget.register(options); // for nested agents (`agentTool`), which share it
  return {
    callerOptions,
    options,
    question: conversation.question,
    plan: planRequests(options, labels, options.tools, conversation),
    router: createToolRouter(options.tools),
    budget,
    repeats: new RepeatTracker(options.maxRepeatedActions ?? 3),
    stopState: { send: true },
    steps: [],
    clock,
    startedMs,
    actionSteps: 0,
    formatErrors: 0,
    refusedAnswers: 0,
  };
}

/** The run's result with a stop reason. */
export function finish(run: Run, status: StopReason, extra: FinishExtra = {}): RunResult {
  const { options, steps, budget } = run;
  const trajectory = options.earlierTrajectories === 'summary' ? summarizeTrajectory(steps) : undefined;
  return {
    status,
    ...extra,
    question: run.question,
    messages: conversationAfter(run.callerOptions, extra.answer, trajectory),
    modelId: options.model.id,
    steps,
    usage: budget.usage,
    usageByModel: budget.usageByModel,
    ...(budget.costUsd !== undefined && { costUsd: budget.costUsd }),
    durationMs: Math.round(performance.now() - run.startedMs),
  };
}

/** The result of a run stopped by its signal: `budget` when its own clock ran out, `aborted` otherwise. */
export function stopped(run: Run): RunResult {
  const { clock, callerOptions } = run;
  return clock?.signal.aborted && !callerOptions.signal?.aborted
    ? finish(run, 'budget', { error: `time budget: the run took longer than ${callerOptions.timeoutMs} ms.` })
    : finish(run, 'aborted', { error: abortedMessage(callerOptions.signal) });
}

/**
 * The next model call, or the limit that stops the run before it. The step limit is checked before the
 * hooks run (no summary is written for a run that stops here), the budget on the request they prepared
 * (compaction, `prepareStep`). The call `forceFinalAnswer` asks for is not limited, but a hook's own model
 * call always is: a hook that lets its `generate`'s {@link BudgetExceededError} through stops the run with
 * `budget` (the forced call included: the hook could not do what it needed for it).
 *
 * @throws {Error} when a hook fails (`prepareStep failed: ...`).
 */
export async function* nextCall(run: Run, index: number): AsyncGenerator<AgentEvent, PreparedCall | Limit> {
  const { options, budget } = run;
  if (!run.forcing && run.actionSteps >= (options.maxSteps ?? DEFAULT_MAX_STEPS))
    return { status: 'max_steps' };
  let call: PreparedCall;
  try {
    call = yield* prepareCall({
      plan: run.plan,
      options,
      router: run.router,
      budget,
      step: index,
      steps: run.steps,
      sendStop: run.stopState.send,
      forced: run.forcing !== undefined,
    });
  } catch (error) {
    if (error instanceof BudgetExceededError) return { status: 'budget', error: error.message };
    throw error;
  }
  const overBudget = run.forcing ? undefined : budget.check(call.request);
  return overBudget === undefined ? call : { status: 'budget', error: overBudget };
}

/**
 * The model call, with `fallbackModels` after it, each with its own `modelTimeoutMs` clock. With a durable
 * journal (the seam a durable engine records side effects through) the call is recorded whole, so it is not
 * streamed, and a resumed run gets the recorded turn; a pause/resume recorder records the streamed call.
 * A streamed call that is aborted once sent is recorded in the run's budget before the abort is rethrown:
 * its usage estimated from the request and the text received (`estimated: true`), as for a cut stream.
 *
 * @throws what the last model tried throws.
 */
export async function* callModel(
  run: Run,
  call: PreparedCall,
  index: number,
): AsyncGenerator<AgentEvent, AnsweredBy> {
  const { options, plan } = run;
  const turnOptions = {
    stream: options.streaming ?? true,
    labels: options.labels,
    stopState: run.stopState,
    cut: !plan.native,
    step: index,
    maxChars: maxTurnChars(options.maxOutputTokens),
    // A streamed call aborted mid-way (the run's abort, its clock, `modelTimeoutMs`) still spent tokens:
    // counted (estimated) in the run's usage, cost and budgets before the loop ends the run or falls back.
    onAborted: (usage: ModelUsage, text: string, modelId: string) => {
      run.budget.record(call.request, usage, text, modelId);
    },
  };
  const { journal } = options;
  if (journal && !recorderOf(journal)) {
    return await journaledTurn(journal, index, call.request, options.modelTimeoutMs, (attempt) =>
      drain(callWithFallbacks(call.models, attempt, { ...turnOptions, stream: false })),
    );
  }
  return yield* recordedTurn(journal, index, () =>
    callWithFallbacks(call.models, call.request, { ...turnOptions, modelTimeoutMs: options.modelTimeoutMs }),
  );
}

/**
 * Reads a response into a step: parsed (text mode, the stream cut then the parser, the same streamed or
 * not) or read from the tool call (native mode, after `repairToolCall` had its chance, whose model calls
 * are yielded as `hook-model-end` events). Records its usage, and that of the repair's model calls.
 */
export async function* readStep(
  run: Run,
  call: PreparedCall,
  answered: AnsweredBy,
  index: number,
  modelStartedMs: number,
): AsyncGenerator<AgentEvent, { step: Step; droppedText?: string }> {
  const { options, plan } = run;
  const { router, request } = call;
  const { modelId } = answered;
  // Recorded before a repair's model calls, which are checked against the budget it leaves.
  const costUsd = run.budget.record(request, answered.response.usage, answered.response.text, modelId);
  const { response, repairs, events } = plan.native
    ? await repairToolCalls(answered.response, index, request.messages, router, options, run.budget)
    : { response: answered.response, repairs: undefined, events: [] };
  yield* events;
  const reading = plan.native
    ? {
        turn: finalAnswerTurn(response, plan.answer) ?? nativeTurn(response, router.tools, options.labels),
        ...nativeStepText(response),
        droppedText: undefined,
      }
    : readTextStep(response, { tools: router.names, labels: options.labels });
  const { turn, reasoning } = reading;
  const toolCall = plan.native && turn.type === 'action' ? response.toolCalls?.[0] : undefined;
  const step: Step = {
    index,
    modelText: response.text,
    transcriptText: reading.transcriptText,
    turn,
    usage: response.usage,
    finishReason: response.finishReason,
    modelDurationMs: Math.round(performance.now() - modelStartedMs),
    ...(costUsd !== undefined && { costUsd }),
    ...(toolCall && { toolCall }),
    ...(reasoning !== undefined && { reasoning }),
    ...(modelId !== options.model.id && { modelId }),
    ...(repairs && { toolCallRepairs: repairs }),
  };
  return { step, ...(reading.droppedText !== undefined && { droppedText: reading.droppedText }) };
}

/** A model error worded for the result; a per-call timeout says how far the call got. */
export function modelErrorMessage(error: unknown, options: AgentOptions): string {
  // A ModelTimeoutError says how far the call got ("no response headers within 120 s").
  if (error instanceof ModelTimeoutError && options.modelTimeoutMs === undefined) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError') {
    const what =
      error instanceof ModelTimeoutError ? error.what : `no answer within ${options.modelTimeoutMs} ms`;
    return `The model call failed: ${what} (modelTimeoutMs: ${options.modelTimeoutMs} ms).`;
  }
  // A ModelCallError already says "Model call to <id> failed: ...".
  if (error instanceof Error && error.name === 'ModelCallError') return error.message;
  return `The model call failed: ${errorMessage(error)}`;
}

/** Runs a generator to its end, passing over what it yields, and returns its result. */
export async function drain<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
  let next = await generator.next();
  while (!next.done) next = await generator.next();
  return next.value;
}
