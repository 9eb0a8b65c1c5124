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
import type { AgentEvent } from '../agent/types.js';
import type { ModelRequest } from '../models/types.js';
import { createTraceCompactor } from './compact.js';
import { NODE_TRACE_FS, type TraceFileSystem, TraceWriteError, writeWholeLines } from './trace-file.js';
import {
  parseTrace,
  TRACE_FORMAT,
  TRACE_FORMAT_VERSION,
  type Trace,
  TraceFormatError,
  type TraceHeader,
} from './trace-format.js';

export { type TraceFileSystem, TraceWriteError } from './trace-file.js';
export {
  formatTrace,
  parseTrace,
  TRACE_FORMAT,
  TRACE_FORMAT_VERSION,
  type Trace,
  type TraceErrorLine,
  TraceFormatError,
  type TraceHeader,
  type TraceLine,
  type TraceRequestLine,
  type TraceStart,
  traceEventLine,
} from './trace-format.js';

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
