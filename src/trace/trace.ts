/**
 * Traces: a run written as JSONL, one event per line, the format version on the first line.
 *
 * Lines are appended synchronously as events happen, so a crash or Ctrl-C leaves a readable trace up to
 * the last completed event. Reading a trace back gives the same steps and result.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentEvent, RunResult, Step } from '../agent/types.js';
import type { ModelMessage, ModelRequest } from '../models/types.js';
import { createTraceCompactor, createTraceExpander } from './compact.js';
import { NODE_TRACE_FS, type TraceFileSystem, TraceWriteError, writeWholeLines } from './trace-file.js';

export { type TraceFileSystem, TraceWriteError } from './trace-file.js';

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
 * Appends events to a trace file as they happen. Its methods never throw: a line that cannot be written
 * (a full disk, a removed folder) ends the writing (see {@link TraceWriterOptions.onError}), and the file
 * keeps the whole lines written before it.
 */
export interface TraceWriter {
  readonly file: string;
  /** Why the trace stopped being written, once a write failed; `undefined` while every line was written. */
  readonly error: TraceWriteError | undefined;
  /**
   * Writes one event. Model deltas are held back and dropped when `model-end` brings the complete text;
   * a call that ends otherwise (stopped, failed) gets one `model-delta` line with what it had written.
   * Reasoning deltas are not kept (the complete reasoning is on `model-end`). Copies of a model text in
   * later events are written as references to it.
   */
  write(event: AgentEvent): void;
  /** Writes a `model-request` line: the messages and stop sequences sent for step `step`. */
  writeRequest(step: number, request: Pick<ModelRequest, 'messages' | 'stopSequences'>): void;
  /** Writes a final `run-error` line, so a crashed run's trace says why it stops there. */
  writeError(message: string): void;
}

/** Options for {@link createTraceWriter}. */
export interface TraceWriterOptions {
  /**
   * Called once, with a {@link TraceWriteError} (`the trace could not be written: <reason>`), when a line
   * after the header cannot be written. Nothing more is written to the file after that (so it never has a
   * gap, nor half a line: a line written in part is cut off again), and the run goes on.
   * @default none: the failure is only kept in {@link TraceWriter.error}
   */
  onError?: (error: TraceWriteError) => void;
  /** The file functions used (tests inject failures). @default node:fs */
  fs?: TraceFileSystem;
}

/**
 * Creates the trace file (and its folder) with its header line. Each later `write` appends one line
 * synchronously, as one whole write; a failed one stops the writing and is reported to `options.onError`,
 * never thrown.
 *
 * @throws {TraceWriteError} when the folder or the file cannot be created or its header line written (a
 * file it made is removed again).
 */
export function createTraceWriter(
  file: string,
  start: { question: string; modelId: string; conversationId?: string; meta?: Record<string, unknown> },
  options: TraceWriterOptions = {},
): TraceWriter {
  const fs = options.fs ?? NODE_TRACE_FS;
  const started = Date.now();
  const header: TraceHeader = {
    type: 'trace-start',
    format: TRACE_FORMAT,
    version: TRACE_FORMAT_VERSION,
    startedAt: new Date(started).toISOString(),
    question: start.question,
    modelId: start.modelId,
    ...(start.conversationId !== undefined && { conversationId: start.conversationId }),
    ...(start.meta && { meta: start.meta }),
  };
  try {
    fs.mkdirSync(dirname(file), { recursive: true });
    writeWholeLines(fs, file, `${JSON.stringify(header)}\n`, 'w');
  } catch (error) {
    throw new TraceWriteError(file, error);
  }
  const compact = createTraceCompactor();
  let failure: TraceWriteError | undefined;
  /** Writes the line `line()` makes (a line that cannot be made, such as a value JSON has no form for, fails too). */
  const append = (line: () => object) => {
    if (failure) return;
    try {
      writeWholeLines(fs, file, `${JSON.stringify({ ...line(), atMs: Date.now() - started })}\n`, 'a');
    } catch (error) {
      failure = new TraceWriteError(file, error);
      try {
        options.onError?.(failure);
      } catch {}
    }
  };
  /** The text the model call in flight has streamed so far. */
  let unfinished: { step: number; text: string } | undefined;
  const flush = () => {
    const { step, text } = unfinished ?? { step: 0, text: '' };
    if (text) append(() => ({ type: 'model-delta', step, text }));
    unfinished = undefined;
  };
  return {
    file,
    get error() {
      return failure;
    },
    write(event) {
      if (failure || event.type === 'reasoning-delta') return;
      // A nested agent's (`agentTool`) deltas are not kept: its `model-end` has the complete text.
      if (event.type === 'agent-event' && /-delta$/.test(event.event.type)) return;
      if (event.type === 'model-delta') {
        if (unfinished && unfinished.step !== event.step) flush();
        unfinished ??= { step: event.step, text: '' };
        unfinished.text += event.text;
        return;
      }
      // `model-end` has the complete text; anything else ends the call without it: keep what was written.
      if (event.type === 'model-end') unfinished = undefined;
      else flush();
      append(() => compact(event) as object);
    },
    writeRequest(step, request) {
      append(() => ({
        type: 'model-request',
        step,
        messages: request.messages,
        ...(request.stopSequences && { stopSequences: request.stopSequences }),
      }));
    },
    writeError(message) {
      flush();
      append(() => ({ type: 'run-error', error: message }));
    },
  };
}

/**
 * Reads a trace. A last line cut off mid-write (a crash) is ignored; any other bad line is an error.
 *
 * @throws {TraceFormatError} when the file is not a taoloop trace, is from a newer version, or has a
 * malformed line.
 */
export function readTrace(file: string): Trace {
  return parseTrace(readTraceText(file), file);
}

/**
 * The text of trace file `file`. Only a regular file is read (a symlink to one is followed): a device such
 * as `/dev/zero` would never end, and a FIFO would block (it is opened without waiting for a writer).
 *
 * @throws {TraceFormatError} for anything but a regular file; the file system's error when it cannot be read.
 */
export function readTraceText(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new TraceFormatError(`${file} is not a regular file.`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link readTrace} of a trace's text already read; `file` names it in errors.
 *
 * @throws {TraceFormatError} as {@link readTrace}.
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
