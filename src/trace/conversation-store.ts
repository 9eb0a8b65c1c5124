/**
 * A conversation store on disk: each run of a conversation is written as a trace (JSONL, the trace format)
 * whose header carries the conversation id. Loading a conversation reads its newest trace's result.
 *
 * @module
 */
import type { AgentMessage } from '../agent/conversation.js';
import type { ConversationStore } from '../agent/session.js';
import type { AgentEvent } from '../agent/types.js';
import { newRunFile, runFiles } from './runs.js';
import { createTraceWriter, readTrace, type Trace, type TraceWriter } from './trace.js';

/** Options for {@link createFileStore}. */
export interface FileStoreOptions {
  /** Kept in each trace header's `meta` (the CLI records its tool options there for `taoloop replay`). */
  meta?: Record<string, unknown>;
}

/**
 * A {@link ConversationStore} writing one trace file per run in `folder` (created if missing), each linked
 * to its conversation by `conversationId` in the trace header. Traces are written as the run goes, so a
 * crash keeps the trace up to the last event; `taoloop runs`, `trace` and `replay` read them as any run.
 * Unreadable files in the folder are skipped.
 */
export function createFileStore(folder: string, options: FileStoreOptions = {}): ConversationStore {
  const writers = new Map<string, TraceWriter>();
  return {
    async load(conversationId) {
      return conversationFromTraces(folder, conversationId) ?? [];
    },
    record(conversationId, event: AgentEvent) {
      if (event.type === 'run-start') {
        writers.set(
          conversationId,
          createTraceWriter(newRunFile(folder), {
            question: event.question,
            modelId: event.modelId,
            conversationId,
            ...(options.meta && { meta: options.meta }),
          }),
        );
      }
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
 * result, so the conversation goes on from the run before it), or undefined when there is none.
 */
export function conversationFromTraces(folder: string, conversationId: string): AgentMessage[] | undefined {
  for (const file of runFiles(folder)) {
    let trace: Trace;
    try {
      trace = readTrace(file);
    } catch {
      continue;
    }
    if (trace.header.conversationId === conversationId && trace.result) return conversationOfTrace(trace);
  }
  return undefined;
}
