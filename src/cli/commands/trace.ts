/**
 * `taoloop trace FILE`: a recorded run printed as its text transcript (Question, then Thought / Action /
 * Observation per step, then the Answer and the footer), through the same renderer as a live run. A trace
 * holds what a model and tools wrote: everything from it is printed through `safeText` (a number through
 * `count`), and a field of the wrong type prints as `?`. An event the renderer cannot read at all (no
 * `step` in a `step-end`, say) is an error naming the file and the line: `FILE is not a valid taoloop
 * trace: line N: ...`, exit code 2.
 *
 * @module
 */
import pc from 'picocolors';
import type { Step } from '../../agent/types.js';
import { LABEL_SETS, type LabelLanguage, primaryLabels } from '../../react/labels.js';
import { findRun, runsFolder } from '../../trace/runs.js';
import { readTrace, type Trace, type TraceLine, traceEventLine } from '../../trace/trace.js';
import { errorMessage } from '../../util/own.js';
import { UsageError, usageError } from '../errors.js';
import { CLI_MESSAGES, fill } from '../i18n.js';
import { createRenderer } from '../render.js';
import { safeText } from '../safe-text.js';

/**
 * Reads a trace given as a path or a run id from the runs folder (`last` for the newest).
 *
 * @throws {UsageError} when there is no such trace, it cannot be read, or an event in it has an object
 * field (a `step`, a `turn`, a `result`) that is not an object: `FILE is not a valid taoloop trace: line N`.
 */
export function loadTrace(ref: string): { file: string; trace: Trace } {
  const file = findRun(ref, runsFolder(process.cwd(), process.env));
  if (!file) throw usageError('traceNotFound', { ref, folder: runsFolder() });
  let trace: Trace;
  try {
    trace = readTrace(file);
  } catch (error) {
    throw new UsageError(`cannot read the trace ${file}: ${errorMessage(error)}`);
  }
  for (const [i, event] of trace.events.entries()) {
    const problem = eventProblem(event);
    if (problem) throw invalidTrace(file, trace, i, problem);
  }
  return { file, trace };
}

/** `FILE is not a valid taoloop trace: line N: what`, for the event `trace.events[index]`. */
function invalidTrace(file: string, trace: Trace, index: number, what: string): UsageError {
  return new UsageError(
    `${safeText(file)} is not a valid taoloop trace: line ${traceEventLine(trace, index)}: ${safeText(what)}`,
  );
}

/** The label language a trace was written in (from the CLI's meta), English otherwise. */
export function traceLanguage(trace: Trace): LabelLanguage {
  const lang = (trace.header.meta?.cli as { lang?: unknown } | undefined)?.lang;
  return typeof lang === 'string' && Object.hasOwn(LABEL_SETS, lang) ? (lang as LabelLanguage) : 'en';
}

/**
 * Prints the transcript and returns 0: labels as the run wrote them, taoloop's words (statuses, the footer,
 * notes) in `options.lang`, else in the run's language.
 *
 * @throws {UsageError} when the trace cannot be found or read, or has an event that cannot be printed.
 */
export function traceCommand(ref: string, options: { lang?: LabelLanguage | undefined } = {}): number {
  const { file, trace } = loadTrace(ref);
  const lang = traceLanguage(trace);
  const messages = CLI_MESSAGES[options.lang ?? lang];
  const render = createRenderer({
    json: false,
    out: process.stdout,
    labels: LABEL_SETS[lang],
    messages,
    showQuestion: true,
  });
  const { header } = trace;
  process.stdout.write(
    `${pc.dim(`${safeText(header.startedAt)} · ${safeText(header.modelId)} · ${safeText(file)}`)}\n`,
  );
  // A trace cut off before run-start (or written by a library caller without one) still names its question.
  if (!trace.events.some((e) => e.type === 'run-start'))
    process.stdout.write(
      `${pc.bold(`${primaryLabels(LABEL_SETS[lang]).question}: ${safeText(header.question)}`)}\n`,
    );
  for (const [i, line] of trace.events.entries()) {
    if (line.type === 'run-error') {
      process.stdout.write(`${pc.red(fill(messages.traceCrashed, { error: safeText(line.error) }))}\n`);
      continue;
    }
    if (line.type === 'model-request') continue; // what was sent: shown by the playground's inspector
    try {
      render(line);
    } catch (error) {
      throw invalidTrace(file, trace, i, errorMessage(error));
    }
  }
  if (!trace.result && trace.error === undefined) process.stdout.write(`${pc.yellow(messages.traceStops)}\n`);
  return 0;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What makes an event of a trace impossible to print (an object the renderer reads is not one), or
 * undefined. Text and number fields are not checked: the renderer prints one of the wrong type as `?`.
 */
export function eventProblem(event: TraceLine | unknown): string | undefined {
  if (!isObject(event)) return 'an event is not a JSON object';
  const { type } = event;
  if (typeof type !== 'string') return 'an event has no "type"';
  const need = (field: string, ok: boolean, what = 'an object') =>
    ok ? undefined : `the ${safeText(type)} event's "${field}" is not ${what}`;
  switch (type) {
    case 'model-end':
      return need('turn', isObject(event.turn));
    case 'step-end':
      return need('step', isObject(event.step)) ?? need('step.turn', isObject((event.step as Step).turn));
    case 'run-end':
      return need('result', isObject(event.result));
    case 'approval-end':
      return need('decision', isObject(event.decision));
    case 'agent-event': {
      const path = event.path;
      const pathOk = Array.isArray(path) && path.every((p) => typeof p === 'string');
      const inner = need('path', pathOk, 'a list of names') ?? need('event', isObject(event.event));
      if (inner) return inner;
      const nested = eventProblem(event.event);
      return nested && `in the nested agent's event: ${nested}`;
    }
    default:
      return undefined;
  }
}
