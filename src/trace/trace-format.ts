/**
 * The trace format: a run as JSONL, one event per line, the format version on the first line. Reading a
 * trace's text ({@link parseTrace}) and writing one from events ({@link formatTrace}) need no file system;
 * the file writer and reader are in `trace.ts`.
 *
 * @module
 */
import type { AgentEvent, RunResult, Step } from '../agent/types.js';
import type { ModelMessage } from '../models/types.js';
import { createTraceCompactor, createTraceExpander } from './compact.js';

/** The format name on a trace's first line. */
export const TRACE_FORMAT = 'taoloop-trace';
/**
 * The format version; readers refuse newer versions. Version 2 stores each model text once (the other
 * copies refer to it, see `compact.ts`); version 1 traces are read as they are.
 */
export const TRACE_FORMAT_VERSION = 2;

/** The first line of a trace. */
export interface TraceHeader {
  type: 'trace-start';
  format: typeof TRACE_FORMAT;
  version: number;
  /** ISO 8601 time the run started. */
  startedAt: string;
  question: string;
  modelId: string;
  /** The conversation this run belongs to (follow-ups of one conversation share it). */
  conversationId?: string;
  /** Anything else the writer wants to keep (tools, options, taoloop version). */
  meta?: Record<string, unknown>;
}

/**
 * The last line of a run that crashed or was stopped at once (a second Ctrl-C): what went wrong. A run
 * that ends normally has a `run-end` event instead.
 */
export interface TraceErrorLine {
  type: 'run-error';
  /** The error's message, as shown to the user. */
  error: string;
  atMs: number;
}

/**
 * What a model call was sent (written by front ends that show it, such as the playground's inspector):
 * the messages and stop sequences of step `step`'s request.
 */
export interface TraceRequestLine {
  type: 'model-request';
  step: number;
  messages: ModelMessage[];
  stopSequences?: string[];
  atMs: number;
}

/**
 * Every later line: an agent event with the time since the start in milliseconds, a `model-request`, or a
 * `run-error`. A `model-delta` line holds the text a model call had written when it ended without its
 * `model-end` (a stop, a failure): the deltas of one call are written as one line, and not at all when
 * `model-end` carries the complete text.
 */
export type TraceLine = (AgentEvent & { atMs: number }) | TraceRequestLine | TraceErrorLine;

/** A trace read back. */
export interface Trace {
  header: TraceHeader;
  events: TraceLine[];
  /** The steps, from the `step-end` events (the run's trajectory). */
  steps: Step[];
  /** The result, when the run ended (absent for a run that crashed or was killed). */
  result?: RunResult;
  /** The message of the `run-error` line, for a run that crashed or was stopped at once. */
  error?: string;
}

/** Thrown by {@link readTrace} for a file that is not a taoloop trace. */
export class TraceFormatError extends Error {
  override name = 'TraceFormatError';
}

/**
 * A trace read from its text (the text of a trace file); `file` names it in errors. A last line cut off
 * mid-write (a crash) is ignored; any other bad line is an error.
 *
 * @throws {TraceFormatError} when the text is not a taoloop trace, is from a newer version, or has a
 * malformed line.
 */
export function parseTrace(text: string, file: string): Trace {
  const lines = text.split('\n');
  const parsed: unknown[] = [];
  /** The file's line number (from 1) of each parsed line. */
  const lineNumbers: number[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const isLast = lines.slice(i + 1).every((rest) => !rest.trim());
      if (!isLast) throw new TraceFormatError(`${file}:${i + 1} is not valid JSON.`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new TraceFormatError(`${file}:${i + 1} is not an event (a JSON object with a "type").`);
    parsed.push(value);
    lineNumbers.push(i + 1);
  });
  const header = parsed[0] as TraceHeader | undefined;
  if (header?.type !== 'trace-start' || header.format !== TRACE_FORMAT) {
    throw new TraceFormatError(
      `${file} is not a taoloop trace (its first line has no "format": "${TRACE_FORMAT}").`,
    );
  }
  if (header.version > TRACE_FORMAT_VERSION) {
    throw new TraceFormatError(
      `${file} uses trace format ${header.version}; this taoloop reads up to ${TRACE_FORMAT_VERSION}. Upgrade taoloop.`,
    );
  }
  const expand = createTraceExpander();
  const events = parsed.slice(1).map((line, i) => {
    try {
      return expand(line as Record<string, unknown>) as TraceLine;
    } catch (error) {
      throw new TraceFormatError(`${file}: event ${i + 1} cannot be read: ${(error as Error).message}.`);
    }
  });
  const steps = events.flatMap((e) => (e.type === 'step-end' ? [e.step] : []));
  const end = events.find((e) => e.type === 'run-end');
  const crash = events.find((e) => e.type === 'run-error');
  const trace: Trace = {
    header,
    events,
    steps,
    ...(end?.type === 'run-end' && { result: end.result }),
    ...(crash?.type === 'run-error' && { error: crash.error }),
  };
  eventLines.set(trace, lineNumbers.slice(1));
  return trace;
}

/** The line numbers of each trace's events, for {@link traceEventLine}. */
const eventLines = new WeakMap<Trace, number[]>();

/**
 * The line of the file (from 1) that `trace.events[index]` was read from; `index + 2` (the header is
 * line 1) for a trace that {@link readTrace} did not read.
 */
export function traceEventLine(trace: Trace, index: number): number {
  return eventLines.get(trace)?.[index] ?? index + 2;
}

/** The header fields {@link formatTrace} takes: what a trace writer is given at the start. */
export type TraceStart = Pick<TraceHeader, 'question' | 'modelId' | 'conversationId' | 'meta' | 'startedAt'>;

/**
 * A trace's text from a finished run's events, as a trace writer would have written them: model and
 * reasoning deltas are left out (each `model-end` has the complete text), model texts are written once.
 * `atMs` of each event is kept as given.
 */
export function formatTrace(start: TraceStart, events: readonly (AgentEvent & { atMs: number })[]): string {
  const header: TraceHeader = {
    type: 'trace-start',
    format: TRACE_FORMAT,
    version: TRACE_FORMAT_VERSION,
    startedAt: start.startedAt,
    question: start.question,
    modelId: start.modelId,
    ...(start.conversationId !== undefined && { conversationId: start.conversationId }),
    ...(start.meta && { meta: start.meta }),
  };
  const compact = createTraceCompactor();
  const lines = [JSON.stringify(header)];
  for (const { atMs, ...event } of events) {
    if (event.type === 'model-delta' || event.type === 'reasoning-delta') continue;
    if (event.type === 'agent-event' && /-delta$/.test(event.event.type)) continue;
    lines.push(JSON.stringify({ ...(compact(event as AgentEvent) as object), atMs }));
  }
  return `${lines.join('\n')}\n`;
}
