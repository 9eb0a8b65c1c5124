/**
 * Sessions: a conversation kept for the caller. A store keeps each conversation by id; a session asks
 * follow-ups in it, one run per user message, each run's input being the conversation so far.
 *
 * @module
 */
import type { AgentMessage } from './conversation.js';
import { streamAgent } from './loop.js';
import { type AgentConfig, withOverrides } from './options.js';
import type { AgentEvent, RunResult } from './types.js';

/**
 * Where conversations are kept. {@link createMemoryStore} keeps them in memory; `createFileStore` (from
 * `taoloop/node`) writes each run as a trace (JSONL) linked to its conversation id.
 */
export interface ConversationStore {
  /** The conversation so far; `[]` for an id the store does not know. */
  load(conversationId: string): Promise<AgentMessage[]>;
  /** Every event of a run in the conversation, in order (the last is `run-end`, with `result.messages`). */
  record(conversationId: string, event: AgentEvent): void | Promise<void>;
}

/** A store that keeps conversations in memory (lost when the process ends). */
export function createMemoryStore(): ConversationStore {
  const conversations = new Map<string, AgentMessage[]>();
  return {
    load: async (id) => [...(conversations.get(id) ?? [])],
    record: (id, event) => {
      if (event.type === 'run-end') conversations.set(id, [...event.result.messages]);
    },
  };
}

/** Options for {@link createSession}: the run's options without the conversation, plus where it is kept. */
export type SessionOptions<O = unknown> = AgentConfig<O> & {
  /** @default createMemoryStore() */
  store?: ConversationStore;
  /** The conversation to continue. @default a new random id */
  conversationId?: string;
};

/** A conversation with an agent. */
export interface Session<O = unknown> {
  /** The conversation's id in the store. */
  readonly conversationId: string;
  /**
   * Asks `text` as the next user message; resolves with the run's result (its `messages` are stored).
   * `overrides` apply to this run only, merged group by group: `{ limits: { maxTokens } }` keeps the
   * session's other `limits`.
   */
  send(text: string, overrides?: Partial<AgentConfig<O>>): Promise<RunResult<O>>;
  /** Like {@link send}, yielding the run's events as they happen. */
  stream(text: string, overrides?: Partial<AgentConfig<O>>): AsyncGenerator<AgentEvent, RunResult<O>>;
  /** The conversation so far. */
  messages(): Promise<AgentMessage[]>;
}

/**
 * A session: each `send` runs the agent on the stored conversation plus the new user message, and stores
 * the conversation after the run.
 *
 * @example
 * ```ts
 * const chat = createSession({ model, tools });
 * await chat.send('Price of Pro per seat?');
 * const followUp = await chat.send('And for 7 seats a year?'); // the first turn is sent as conversation
 * ```
 */
export function createSession<O = unknown>(options: SessionOptions<O>): Session<O> {
  const { store = createMemoryStore(), conversationId = randomId(), ...agentOptions } = options;
  async function* stream(
    text: string,
    overrides: Partial<AgentConfig<O>> = {},
  ): AsyncGenerator<AgentEvent, RunResult<O>> {
    const earlier = await store.load(conversationId);
    const run = streamAgent<O>({
      // An override replaces what it names: `limits: { maxTokens }` keeps the session's other limits.
      ...withOverrides(agentOptions, overrides),
      messages: [...earlier, { role: 'user', content: text }],
    });
    let next = await run.next();
    while (!next.done) {
      await store.record(conversationId, next.value);
      yield next.value;
      next = await run.next();
    }
    return next.value;
  }
  return {
    conversationId,
    stream,
    async send(text, overrides) {
      const run = stream(text, overrides);
      let next = await run.next();
      while (!next.done) next = await run.next();
      return next.value;
    },
    messages: () => store.load(conversationId),
  };
}

/** A random conversation id (`crypto.randomUUID`, available in browsers, workers and Node 20). */
function randomId(): string {
  return globalThis.crypto.randomUUID();
}
