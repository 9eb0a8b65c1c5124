/**
 * `taoloop run --continue <id|last>`: a follow-up to a recorded run. The recorded run's conversation (its
 * trace's `result.messages`) goes before the new question, and the new trace joins its conversation id.
 *
 * @module
 */
import { basename } from 'node:path';
import type { AgentMessage } from '../agent/conversation.js';
import { conversationFromTraces, conversationOfTrace } from '../trace/conversation-store.js';
import { findRun, runsFolder } from '../trace/runs.js';
import { readTrace } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';
import { UsageError } from './errors.js';

/** The conversation a follow-up continues. */
export interface ContinuedConversation {
  conversationId: string;
  earlier: AgentMessage[];
}

/**
 * Reads the recorded run `ref` (a run id, `last`, or a trace file) from the runs folder; a `ref` that names
 * no run but a conversation (the id `taoloop chat` shows) continues that conversation's newest run.
 *
 * @throws {UsageError} when no run or conversation matches or the trace cannot be read.
 */
export function continuedConversation(
  ref: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): ContinuedConversation {
  const folder = runsFolder(cwd, env);
  const file = findRun(ref, folder, cwd);
  if (!file) {
    const earlier = conversationFromTraces(folder, ref);
    if (earlier) return { conversationId: ref, earlier };
    throw new UsageError(`no recorded run "${ref}" in ${folder}: see \`taoloop runs\` for the ids.`);
  }
  try {
    const trace = readTrace(file);
    return {
      conversationId: trace.header.conversationId ?? basename(file, '.jsonl'),
      earlier: conversationOfTrace(trace),
    };
  } catch (error) {
    throw new UsageError(`cannot continue ${file}: ${errorMessage(error)}`);
  }
}
