/**
 * `taoloop run` and `taoloop ask`: prepare the run, then stream its events to the terminal and to a trace
 * file written as they happen. Ctrl-C stops the run (status `aborted`, trace complete); a second Ctrl-C
 * quits at once after noting it in the trace; a crash leaves a trace ending with a `run-error` line.
 * Ctrl-C at a prompt (approval, the human tool, `--model human`), SIGTERM and SIGHUP count the same.
 *
 * @module
 */

import pc from 'picocolors';
import { AgentConfigError } from '../../agent/errors.js';
import { streamAgent } from '../../agent/loop.js';
import type { AgentEvent, RunResult } from '../../agent/types.js';
import { ENGLISH_LABELS } from '../../react/labels.js';
import { ToolConfigError } from '../../tools/router.js';
import { newRunFile, runsFolder, shortRunId } from '../../trace/runs.js';
import { createTraceWriter, TraceWriteError, type TraceWriter } from '../../trace/trace.js';
import { errorMessage } from '../../util/own.js';
import { terminalApprover } from '../approve.js';
import { continuedConversation } from '../continue.js';
import { EXIT, UsageError } from '../errors.js';
import { CLI_MESSAGES, type CliMessages, fill } from '../i18n.js';
import { type InterruptReason, onRunInterrupt } from '../interrupt.js';
import type { RunCommandOptions } from '../options.js';
import { createRenderer } from '../render.js';
import { type PreparedRun, prepareRun } from '../setup.js';
import { onStopSignals, type StopSignal, signalExitCode } from '../signals.js';
import { createSpinner, type Spinner, spinnerEnabled } from '../spinner.js';

/** Where a run's trace goes: `--trace FILE`, else a new file in the runs folder. */
export interface TraceTarget {
  file: string;
  /** True for `--trace FILE`: failing to write it is the caller's mistake, not something to warn about. */
  explicit: boolean;
}

/** Runs one question (`run`, or `ask` with the human tool) and returns the exit code. */
export async function runCommand(
  question: string,
  options: RunCommandOptions,
  context: {
    command: 'run' | 'ask';
    config?: string | undefined;
    /** Where the model's API keys are read from. @default process.env */
    env?: NodeJS.ProcessEnv | undefined;
    /** Where the `--fallback` models' API keys are read from. @default `env` */
    fallbackEnv?: NodeJS.ProcessEnv | undefined;
  },
): Promise<number> {
  const cwd = process.cwd();
  const env = context.env ?? process.env;
  const prepared = await prepareRun(question, options, { ...context, cwd, env });
  const continued =
    options.continue === undefined ? undefined : continuedConversation(options.continue, cwd, env);
  if (continued) {
    prepared.input = { messages: [...continued.earlier, { role: 'user', content: question }] };
  }
  const target: TraceTarget = options.trace
    ? { file: options.trace, explicit: true }
    : {
        file: newRunFile(runsFolder(cwd, process.env), new Date(), continued?.conversationId),
        explicit: false,
      };
  const controller = new AbortController();
  let trace: TraceWriter | undefined;
  const stopInterrupts = onInterrupts(controller, prepared.messages.stopping, () => trace, prepared.messages);
  // A run kept in the runs folder also gets the short id `taoloop runs` shows and `trace` accepts.
  const { spinner, render } = terminalOutput(prepared, options, {
    trace: target.file,
    ...(!target.explicit && { id: shortRunId(target.file) }),
  });
  let result: RunResult | undefined;
  try {
    const events = streamAgent({
      ...prepared.agent,
      ...prepared.input,
      approve: terminalApprover({ messages: prepared.messages.approval }),
      signal: controller.signal,
    });
    result = await consumeRun(events, {
      openTrace: () => {
        trace = openTrace(target, prepared, question, continued?.conversationId);
        return trace;
      },
      render,
      spinner,
      thinking: prepared.messages.thinking,
    });
  } catch (error) {
    if (trace && !(error instanceof UsageError))
      process.stderr.write(`${prepared.messages.trace} ${trace.file}\n`);
    throw error;
  } finally {
    spinner.stop();
    stopInterrupts();
  }
  // A trace that stopped being written was said when it happened (`traceWriteFailed`); the exit code stays
  // the run's: the answer was printed, only the record of it is incomplete.
  if (trace && !trace.error && !options.json)
    process.stderr.write(pc.dim(`${prepared.messages.trace} ${trace.file}\n`));
  return result?.status === 'answered' ? EXIT.answered : EXIT.noAnswer;
}

/**
 * The spinner (standard error; none with `--json`, for `--model human` or off a terminal) and the renderer
 * (standard output: the live trace, or one JSON result with `jsonExtra` added) of one run.
 */
export function terminalOutput(
  prepared: PreparedRun,
  options: Pick<RunCommandOptions, 'json' | 'stream' | 'hideReasoning'>,
  jsonExtra: Record<string, unknown> = {},
): { spinner: Spinner; render: (event: AgentEvent) => void } {
  const spinner = createSpinner(
    process.stderr,
    !options.json && !prepared.humanModel && spinnerEnabled(process.stderr),
  );
  const render = createRenderer({
    json: options.json,
    out: process.stdout,
    labels: prepared.agent.prompt?.labels ?? ENGLISH_LABELS,
    messages: prepared.messages,
    jsonExtra,
    live: options.stream && !options.json,
    hideReasoning: options.hideReasoning === true,
    native: usesNativeCalls(prepared),
    beforeLiveOutput: () => spinner.stop(),
  });
  return { spinner, render };
}

/** True when the run uses provider tool calling (`--mode native`, or `auto` with a model that has it). */
function usesNativeCalls(prepared: PreparedRun): boolean {
  const { model } = prepared.agent;
  const mode = prepared.agent.modelSettings?.mode;
  return mode === 'native' || (mode === 'auto' && model.supportsToolCalls === true);
}

/** Events that leave the spinner turning. */
const TURNING = new Set<AgentEvent['type']>(['run-start', 'model-start', 'model-delta', 'reasoning-delta']);

/** What {@link consumeRun} sends each event to. */
export interface RunSinks {
  /** Called at `run-start`, so a run that fails its own option checks writes no trace. */
  openTrace(): TraceWriter | undefined;
  render(event: AgentEvent): void;
  spinner: Spinner;
  /** Spinner text. */
  thinking: string;
}

/**
 * Drains the loop's events into the trace (first, so the file is complete even if rendering fails), the
 * spinner and the renderer. Any error thrown while draining is written to the trace as a `run-error` line
 * and rethrown; the loop's and the router's option errors as a {@link UsageError}.
 */
export async function consumeRun(
  events: AsyncIterable<AgentEvent>,
  sinks: RunSinks,
): Promise<RunResult | undefined> {
  let trace: TraceWriter | undefined;
  let result: RunResult | undefined;
  try {
    for await (const event of events) {
      if (event.type === 'run-start') trace = sinks.openTrace();
      trace?.write(event);
      if (event.type === 'model-start') sinks.spinner.start(`${sinks.thinking} (${event.step})`);
      // The spinner turns until the turn shows: the renderer stops it before printing a streamed turn's first
      // characters (tokens that print nothing yet, such as native mode's text, leave it turning), and any
      // other event stops it.
      if (!TURNING.has(event.type)) sinks.spinner.stop();
      sinks.render(event);
      // The retry's line is printed; the spinner turns again while the call is tried again.
      if (event.type === 'model-retry') sinks.spinner.start(`${sinks.thinking} (${event.step})`);
      if (event.type === 'run-end') result = event.result;
    }
  } catch (error) {
    sinks.spinner.stop();
    if (!(error instanceof UsageError)) trace?.writeError(errorMessage(error));
    // Options the loop or the router refuse are the caller's mistake: exit code 2, like the CLI's own checks.
    if (error instanceof AgentConfigError || error instanceof ToolConfigError)
      throw new UsageError(error.message);
    throw error;
  }
  return result;
}

/**
 * Creates the trace file; a default location that cannot be written is a warning, `--trace FILE` an error.
 * A line that cannot be written later (a full disk, a removed folder) is a warning on standard error, and
 * the run goes on without its trace.
 */
function openTrace(
  target: TraceTarget,
  prepared: PreparedRun,
  question: string,
  conversationId: string | undefined,
): TraceWriter | undefined {
  try {
    return createTraceWriter(
      target.file,
      {
        question,
        modelId: prepared.agent.model.id,
        ...(conversationId !== undefined && { conversationId }),
        meta: prepared.meta,
      },
      { onError: (error) => warnTraceFailed(prepared.messages, error) },
    );
  } catch (error) {
    if (target.explicit)
      throw new UsageError(
        fill(prepared.messages.cannotWriteTrace, { file: target.file, detail: errorMessage(error) }),
      );
    process.stderr.write(
      pc.yellow(`taoloop: ${fill(prepared.messages.noTrace, { detail: errorMessage(error) })}\n`),
    );
    return undefined;
  }
}

/** Says on standard error that the run's trace stopped being written, and why. */
export function warnTraceFailed(messages: Pick<CliMessages, 'traceWriteFailed'>, error: Error): void {
  const detail = error instanceof TraceWriteError ? error.reason : error.message;
  process.stderr.write(`\n${pc.yellow(`taoloop: ${fill(messages.traceWriteFailed, { detail })}`)}\n`);
}

/**
 * First Ctrl-C, SIGTERM or SIGHUP: abort the run (it ends with status `aborted`, a complete trace and exit
 * code 1, like any run without an answer). Second: note it in the trace and exit at once with the shell's
 * code for that signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP). Ctrl-C reaches here as the process's SIGINT,
 * or from a prompt whose readline caught it (see `interrupt.ts`). Closed output (EPIPE) aborts the run
 * quietly; the end of the input at the human tool's prompt aborts it with the reason in the result.
 */
export function onInterrupts(
  controller: AbortController,
  notice: string,
  trace: () => TraceWriter | undefined,
  words: Pick<CliMessages, 'inputEnded' | 'stoppingBecause'> = CLI_MESSAGES.en,
): () => void {
  let count = 0;
  const handler = (reason: InterruptReason, signal: StopSignal = 'SIGINT') => {
    if (reason === 'output-closed') {
      if (!controller.signal.aborted) controller.abort(new Error('the output was closed'));
      return;
    }
    if (reason === 'input-ended') {
      if (controller.signal.aborted) return;
      process.stderr.write(
        `\n${pc.yellow(`taoloop: ${fill(words.stoppingBecause, { reason: words.inputEnded })}`)}\n`,
      );
      controller.abort(new Error(words.inputEnded));
      return;
    }
    count += 1;
    const what = signal === 'SIGINT' ? 'Ctrl-C' : signal;
    if (count === 1) {
      process.stderr.write(`\n${pc.yellow(notice)}\n`);
      controller.abort(new Error(`interrupted (${what})`));
      return;
    }
    trace()?.writeError(`interrupted twice (${what}): quit at once`);
    process.exit(signalExitCode(signal));
  };
  const stopSignals = onStopSignals((signal) => handler('ctrl-c', signal));
  const unregister = onRunInterrupt(handler);
  return () => {
    stopSignals();
    unregister();
  };
}
