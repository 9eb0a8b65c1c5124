/**
 * `taoloop trace FILE`: a recorded run printed as its text transcript (Question, then Thought / Action /
 * Observation per step, then the Answer and the footer), through the same renderer as a live run. A trace
 * holds what a model and tools wrote: everything from it is printed through `safeText`.
 *
 * @module
 */
import pc from 'picocolors';
import { LABEL_SETS, type LabelLanguage, primaryLabels } from '../../react/labels.js';
import { findRun, runsFolder } from '../../trace/runs.js';
import { readTrace, type Trace } from '../../trace/trace.js';
import { errorMessage } from '../../util/own.js';
import { UsageError } from '../errors.js';
import { CLI_MESSAGES, fill } from '../i18n.js';
import { createRenderer } from '../render.js';
import { safeText } from '../safe-text.js';

/** Reads a trace given as a path or a run id from the runs folder (`last` for the newest). */
export function loadTrace(ref: string): { file: string; trace: Trace } {
  const file = findRun(ref, runsFolder(process.cwd(), process.env));
  if (!file)
    throw new UsageError(
      `no trace "${ref}": not a file, and no run with that id in ${runsFolder()} (see taoloop runs).`,
    );
  try {
    return { file, trace: readTrace(file) };
  } catch (error) {
    throw new UsageError(`cannot read the trace ${file}: ${errorMessage(error)}`);
  }
}

/** The label language a trace was written in (from the CLI's meta), English otherwise. */
export function traceLanguage(trace: Trace): LabelLanguage {
  const lang = (trace.header.meta?.cli as { lang?: unknown } | undefined)?.lang;
  return typeof lang === 'string' && Object.hasOwn(LABEL_SETS, lang) ? (lang as LabelLanguage) : 'en';
}

/** Prints the transcript and returns 0. @throws {UsageError} when the trace cannot be found or read. */
export function traceCommand(ref: string): number {
  const { file, trace } = loadTrace(ref);
  const lang = traceLanguage(trace);
  const messages = CLI_MESSAGES[lang];
  const render = createRenderer({
    json: false,
    out: process.stdout,
    labels: LABEL_SETS[lang],
    messages,
    showQuestion: true,
  });
  const { header } = trace;
  process.stdout.write(`${pc.dim(safeText(`${header.startedAt} · ${header.modelId} · ${file}`))}\n`);
  // A trace cut off before run-start (or written by a library caller without one) still names its question.
  if (!trace.events.some((e) => e.type === 'run-start'))
    process.stdout.write(
      `${pc.bold(`${primaryLabels(LABEL_SETS[lang]).question}: ${safeText(header.question)}`)}\n`,
    );
  for (const line of trace.events) {
    if (line.type === 'run-error') {
      process.stdout.write(`${pc.red(fill(messages.traceCrashed, { error: safeText(line.error) }))}\n`);
      continue;
    }
    if (line.type === 'model-request') continue; // what was sent: shown by the playground's inspector
    render(line);
  }
  if (!trace.result && trace.error === undefined) process.stdout.write(`${pc.yellow(messages.traceStops)}\n`);
  return 0;
}
