/**
 * A conversation store on disk: each run of a conversation is written as a trace (JSONL, the trace format)
 * whose header carries the conversation id, and whose file name carries the conversation's key (see
 * `conversationKey` in `runs.ts`). Loading a conversation lists the folder and reads only the traces whose
 * names carry its key, newest first, until one has a result: a conversation that is not there reads no
 * trace at all.
 *
 * @module
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import type { AgentMessage } from '../agent/conversation.js';
import type { ConversationStore } from '../agent/session.js';
import type { AgentEvent } from '../agent/types.js';
import { conversationKey, newRunFile } from './runs.js';
import {
  createTraceWriter,
  parseTrace,
  readTraceText,
  type Trace,
  TraceWriteError,
  type TraceWriter,
} from './trace.js';

/** The file functions a conversation lookup uses. */
export interface ConversationFs {
  /** The names in a folder, as `node:fs`'s `readdirSync`. */
  readdirSync(path: string): string[];
  /** A trace's whole text, as `readTraceText` (`trace.ts`): a regular file only. */
  readTraceText(path: string): string;
}

/** Node's file system: `node:fs`'s `readdirSync`, and `readTraceText`. */
export const NODE_CONVERSATION_FS: ConversationFs = {
  readdirSync: (path) => nodeFs.readdirSync(path),
  readTraceText,
};

/** Options for {@link createFileStore}. */
export interface FileStoreOptions {
  /** Kept in each trace header's `meta` (the CLI records its tool options there for `taoloop replay`). */
  meta?: Record<string, unknown>;
  /**
   * Called when a run's trace cannot be created or a line of it cannot be written (a full disk, a removed
   * folder), with a {@link TraceWriteError} saying `the trace could not be written: <reason>`. The run goes
   * on; its trace stops at the last whole line (or is not kept at all).
   * @default none: the failure is ignored
   */
  onError?: (error: TraceWriteError) => void;
  /** The file functions loading uses (tests count what is read). @default `NODE_CONVERSATION_FS` */
  fs?: ConversationFs;
}

/**
 * A {@link ConversationStore} writing one trace file per run in `folder` (created if missing), each linked
 * to its conversation by `conversationId` in the trace header and by the conversation's key in its file
 * name. Traces are written as the run goes, so a crash keeps the trace up to the last event; `taoloop
 * runs`, `trace` and `replay` read them as any run. Unreadable files in the folder are skipped. `record`
 * never throws: a trace that cannot be written goes to `options.onError`.
 */
export function createFileStore(folder: string, options: FileStoreOptions = {}): ConversationStore {
  const fs = options.fs ?? NODE_CONVERSATION_FS;
  const writers = new Map<string, TraceWriter>();
  const onError = (error: TraceWriteError) => options.onError?.(error);
  const open = (conversationId: string, event: Extract<AgentEvent, { type: 'run-start' }>) => {
    writers.delete(conversationId);
    const file = newRunFile(folder, new Date(), conversationId);
    const start = {
      question: event.question,
      modelId: event.modelId,
      conversationId,
      ...(options.meta && { meta: options.meta }),
    };
    try {
      writers.set(conversationId, createTraceWriter(file, start, { onError }));
    } catch (error) {
      onError(error instanceof TraceWriteError ? error : new TraceWriteError(file, error));
    }
  };
  return {
    async load(conversationId) {
      return conversationFromTraces(folder, conversationId, fs) ?? [];
    },
    record(conversationId, event: AgentEvent) {
      if (event.type === 'run-start') open(conversationId, event);
      writers.get(conversationId)?.write(event);
      if (event.type === 'run-end') writers.delete(conversationId);
    },
  };
}

/**
 * The conversation after a recorded run: the run's `result.messages` (traces written before conversations
 * existed have none: their question, and their answer if any).
 */
export function conversationOfTrace(trace: Trace): AgentMessage[] {
  const messages = trace.result?.messages;
  if (Array.isArray(messages)) return messages;
  const turns: AgentMessage[] = [{ role: 'user', content: trace.header.question }];
  if (trace.result?.answer !== undefined) turns.push({ role: 'assistant', content: trace.result.answer });
  return turns;
}

/**
 * The conversation `conversationId` from its newest trace in `folder` that ended (a run that crashed has no
 * result, so the conversation goes on from the run before it), or undefined when there is none. Only the
 * traces whose file names say they are its are read (see {@link conversationTraceFiles}), and one counts
 * only when its own header names `conversationId`.
 *
 * @param fs - The file functions used. @default `NODE_CONVERSATION_FS`
 */
export function conversationFromTraces(
  folder: string,
  conversationId: string,
  fs: ConversationFs = NODE_CONVERSATION_FS,
): AgentMessage[] | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return undefined;
  }
  for (const file of conversationTraceFiles(folder, names, conversationId)) {
    let trace: Trace;
    try {
      trace = parseTrace(fs.readTraceText(file), file);
    } catch {
      continue;
    }
    if (trace.header.conversationId === conversationId && trace.result) return conversationOfTrace(trace);
  }
  return undefined;
}

/**
 * Of the file `names` in `folder`, the traces that may be of conversation `conversationId`, newest first
 * (full paths): those whose names carry its key (`<time>.<key>-<id>.jsonl`), and the trace named by the
 * conversation id itself (a playground conversation's id is its first run's id). Traces written without
 * the key (by taoloop before keys, or to a path of one's own) are not found by the conversation id; they
 * are still found by their run id (`taoloop run --continue <run id>`).
 */
export function conversationTraceFiles(
  folder: string,
  names: readonly string[],
  conversationId: string,
): string[] {
  const keyed = `.${conversationKey(conversationId)}-`;
  const own = `${conversationId}.jsonl`;
  return names
    .filter((name) => name.endsWith('.jsonl') && (name.includes(keyed) || name === own))
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
    .map((name) => join(folder, name));
}
