/**
 * A route handler's `Response` for the AI SDK's `useChat`: read the UI messages it posts, run the agent on
 * them as a conversation, stream the run back as a UI message stream. Portable (a `Request` in, a
 * `Response` out): Next.js, Hono, Deno, Bun, workers, or Node's `http` through a small adapter.
 *
 * @module
 */
import type { UIMessage } from 'ai';
import { type AgentMessage, readConversation } from '../agent/conversation.js';
import { AgentConfigError, RunStateError } from '../agent/errors.js';
import { streamAgent } from '../agent/loop.js';
import { type AgentConfig, type RunSettings, runSettings } from '../agent/options.js';
import { openResume, type ResumeInput } from '../agent/pause.js';
import { streamResumedAgent } from '../agent/resume.js';
import type { AgentEvent, ApprovalDecision, RunResult, RunState } from '../agent/types.js';
import { errorMessage, ownField } from '../util/own.js';
import { abortAny } from '../util/signal.js';
import { ChatStream, chatIdInResumeUrl } from './chat-stream.js';
import { ownData } from './own-data.js';
import { pausedRunIn } from './ui-resume.js';
import { type ToUIMessageStreamOptions, toUIMessageStream } from './ui-stream.js';

/** Thrown by {@link uiMessagesToAgentMessages} for UI messages that cannot become a conversation. */
export class UIMessagesError extends Error {
  override name = 'UIMessagesError';
}

/**
 * The UI messages `useChat` keeps (`{ id, role, parts }`) as a taoloop conversation: each user message's
 * text parts, and each assistant message's text parts (its answer; its reasoning, tool and data parts are
 * that turn's trajectory, which is not sent again), but for text the stream ended as discarded
 * (`DISCARDED`: an answer that streamed and was then refused).
 *
 * @throws {UIMessagesError} for a value that is not an array of UI messages, a system message (a client
 * does not get to set the agent's instructions), or a user message with a part that is not text (a file).
 */
export function uiMessagesToAgentMessages(messages: unknown): AgentMessage[] {
  // Read as own data: a field only `Object.prototype` has (prototype pollution) is absent.
  const own = ownMessages(messages);
  if (!Array.isArray(own)) throw new UIMessagesError('`messages` must be an array of UI messages.');
  const out: AgentMessage[] = [];
  own.forEach((message: Partial<UIMessage> | null, i) => {
    const role = message?.role;
    const parts = message?.parts;
    if ((role !== 'user' && role !== 'assistant') || !Array.isArray(parts)) {
      throw new UIMessagesError(
        `messages[${i}] must be a user or assistant UI message with parts (got role ${JSON.stringify(role)}).`,
      );
    }
    const texts: string[] = [];
    for (const part of parts) {
      if (part?.type === 'text' && isDiscarded(part)) continue;
      if (part?.type === 'text' && typeof part.text === 'string') texts.push(part.text);
      else if (part?.type === 'text')
        throw new UIMessagesError(`messages[${i}] has a text part without a \`text\` string.`);
      else if (role === 'user') {
        throw new UIMessagesError(
          `messages[${i}] has a ${JSON.stringify(part?.type)} part: this agent takes text messages only.`,
        );
      }
    }
    const text = texts.join('\n');
    if (role === 'assistant' && !text.trim()) return; // a turn that ended without an answer
    out.push({ role, content: text });
  });
  return out;
}

/** A part the stream ended as discarded (`DISCARDED`): streamed text its turn did not keep. */
function isDiscarded(part: { providerMetadata?: unknown }): boolean {
  const metadata = part.providerMetadata as { taoloop?: { discarded?: unknown } } | undefined;
  return metadata?.taoloop?.discarded === true;
}

/** {@link ownData} of `messages`, a request that is nested too deeply being a {@link UIMessagesError}. */
function ownMessages(messages: unknown): unknown {
  try {
    return ownData(messages);
  } catch (error) {
    throw new UIMessagesError(`\`messages\` cannot be read: ${errorMessage(error)}.`);
  }
}

/** Options for {@link createAgentUIStreamResponse}: the run's options, without the conversation. */
export type AgentUIStreamResponseOptions = AgentConfig & {
  /**
   * The request `useChat` sent (POST, JSON body `{ id, messages: UIMessage[] }`). Its signal aborts the run
   * (not with `streams`).
   */
  request: Request;
  /** Extra response headers. */
  headers?: ResponseInit['headers'];
  /** Called with the run's result when it ends (to store the conversation, log usage, ...). */
  onResult?: (result: RunResult) => void | Promise<void>;
  /**
   * Resumable streams (`useChat({ resume: true })`), in this server process: a map the route keeps
   * across requests (`new Map()`). A POST's run is kept in it by chat id (the body's `id`) while it runs,
   * its events recorded; the client going away (a reload) no longer aborts the run. A GET (the AI SDK's
   * resume request, `<api>/<chat id>/stream`) answers the chat's run in flight, replayed from its start
   * and followed to its end, or `204` when there is none. `streams.get(chatId)?.stop()` stops a run (a
   * stop button's route). Check that the person may read the chat before answering a GET.
   */
  streams?: Map<string, ChatStream>;
};

/**
 * Answers a `useChat` request: reads `{ messages }` (UI messages), runs {@link streamAgent} on them as a
 * conversation, and returns the run as a UI message stream response (server-sent events, the AI SDK's
 * `createUIMessageStreamResponse`). A streamed model's parts grow as they arrive (see `toUIMessageStream`);
 * a run with `output` or `hooks.checkAnswer` sends its answer whole once accepted. Closing the request (the
 * user left) aborts the run, unless `streams` keeps it for the chat (resumable streams: a GET request is
 * then the AI SDK's resume request).
 *
 * With `durable.pauseForApproval` (and a `durable.secret`, required then), a tool call that needs approval
 * ends the response with the AI SDK's tool approval request (the tool part's state is `approval-requested`)
 * and a `data-run-pause` part holding the signed run state. When the person answers
 * (`addToolApprovalResponse`; `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`
 * sends it), the next request carries that message back, and this resumes the run from its state
 * ({@link streamResumedAgent}): the answer is streamed into the same assistant message, nothing that already
 * ran runs again, and no server store is needed between the two requests. Only `approved: true` approves; a
 * denial's `reason` reaches the model. A nested agent's (`agentTool`) approval is asked and resumed the same
 * way (its tool part is the nested tool's), and a native step's several approvals come in one response, one
 * tool part each: the resume needs a response for each.
 *
 * A body that is not JSON with a `messages` array of text UI messages gets a `400` response with
 * `{ error }` saying what is wrong; the agent does not run. So does a resume whose state is not signed
 * with `secret` (or was changed), whose approval responses do not match the requests it waits for (one
 * for another request, none for one of them, or two for one), or whose earlier messages are not the
 * conversation the run paused on (a paused message pasted into another chat). Only tool parts carry
 * approval responses.
 *
 * The route keeps no store, so it cannot tell a second post of the same approved message (a retry, a
 * replayed request) from the first: each resumes the run, and an approved call runs each time. Tools with
 * external effects must pass `context.callId` on as an idempotency key (it is the same on every resume of
 * the same state); or, before calling this, read the request (`request.clone().json()`), take the pending
 * ids from the last message's `data-run-pause` part, and record them as used with an atomic insert,
 * answering a post whose ids were already used without calling this.
 *
 * @throws {AgentConfigError} for `durable.pauseForApproval` without a `durable.secret`: the state goes
 * through the browser.
 *
 * @example
 * ```ts
 * // app/api/chat/route.ts (Next.js)
 * export const POST = (request: Request) => createAgentUIStreamResponse({ model, tools, request });
 * ```
 */
export async function createAgentUIStreamResponse(options: AgentUIStreamResponseOptions): Promise<Response> {
  const { request, headers, onResult, streams, ...agentOptions } = options;
  if (streams && request.method === 'GET') return resumeResponse(streams, request, headers);
  // Read as own properties, as the run reads them: an inherited `secret` is no secret.
  const settings = runSettings(agentOptions);
  if (ownField(settings, 'pauseForApproval') === true && ownField(settings, 'secret') === undefined) {
    throw new AgentConfigError(
      'durable.pauseForApproval in a chat route needs a `durable.secret`: the paused run state goes to the browser and back, and only a signed state is resumed.',
    );
  }
  let run: { messages: AgentMessage[] } | { resume: ResumeInput; messages: AgentMessage[] };
  let chatId: unknown;
  try {
    // Every field of the body is read as the client's own data (`own-data.ts`).
    const body = ownMessages(await request.json());
    const fields =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as { messages?: unknown; id?: unknown })
        : {};
    run = await readChatRequest(fields.messages, settings);
    chatId = fields.id;
    if (streams && (typeof chatId !== 'string' || chatId === ''))
      throw new UIMessagesError('a resumable chat route needs the chat `id` that `useChat` sends.');
  } catch (error) {
    const known =
      error instanceof UIMessagesError || error instanceof AgentConfigError || error instanceof RunStateError;
    const detail = known ? error.message : `the body is not JSON (${errorMessage(error)})`;
    return Response.json({ error: `Bad chat request: ${detail}` }, { status: 400 });
  }
  // With resumable streams the run belongs to the chat, not to the request: a reload does not stop it.
  const chat = streams ? openChatStream(streams, chatId as string) : undefined;
  const stop = chat?.signal ?? request.signal;
  const signal = agentOptions.signal ? abortAny([agentOptions.signal, stop]) : stop;
  const events: AsyncIterable<AgentEvent> =
    'resume' in run
      ? streamResumedAgent({
          ...agentOptions,
          // Read like decisions from anywhere, failing closed; typed as decisions only for the call.
          ...(run.resume as { state: RunState; decisions: Record<string, ApprovalDecision> }),
          messages: run.messages,
          signal,
        })
      : streamAgent({ ...agentOptions, messages: run.messages, signal });
  const stream = toUIMessageStream(events, {
    tools: agentOptions.tools,
    ...(onResult && { onResult }),
    ...streamSettings(settings),
  });
  const { createUIMessageStreamResponse } = await import('ai');
  return createUIMessageStreamResponse({
    stream,
    ...(headers && { headers }),
    ...(chat && streams && { consumeSseStream: recordIn(streams, chatId as string, chat) }),
  });
}

/** A new run's entry for `chatId`; a run still going for the chat is stopped (a chat runs one at a time). */
function openChatStream(streams: Map<string, ChatStream>, chatId: string): ChatStream {
  streams.get(chatId)?.stop();
  const chat = new ChatStream();
  streams.set(chatId, chat);
  return chat;
}

/** Records the response's events in `chat`, which leaves `streams` when the run's stream ends. */
function recordIn(
  streams: Map<string, ChatStream>,
  chatId: string,
  chat: ChatStream,
): (options: { stream: ReadableStream<string> }) => void {
  const ended = () => {
    if (streams.get(chatId) === chat) streams.delete(chatId);
  };
  // A copy that fails to read (the run's stream broke) ends the entry all the same.
  return ({ stream }) => void chat.record(stream, ended).catch(() => {});
}

/**
 * The resume request of `useChat({ resume: true })` (a GET of `<api>/<chat id>/stream`): the chat's run in
 * flight, its events from the start, or `204` when the chat has none.
 */
async function resumeResponse(
  streams: Map<string, ChatStream>,
  request: Request,
  headers: ResponseInit['headers'] | undefined,
): Promise<Response> {
  const chatId = chatIdInResumeUrl(request.url);
  const chat = chatId === undefined ? undefined : streams.get(chatId);
  if (chat === undefined || chat.done)
    return new Response(null, { status: 204, ...(headers && { headers }) });
  const { UI_MESSAGE_STREAM_HEADERS } = await import('ai');
  const responseHeaders = new Headers(UI_MESSAGE_STREAM_HEADERS);
  for (const [name, value] of new Headers(headers)) responseHeaders.set(name, value);
  return new Response(chat.replay().pipeThrough(new TextEncoderStream()), { headers: responseHeaders });
}

/**
 * How the run's turns are read as they stream: its labels, its mode (`auto` is native for a model that
 * calls tools, as the run decides), and whether its answer may stream (not when it may be refused).
 */
function streamSettings(
  settings: RunSettings,
): Pick<ToUIMessageStreamOptions, 'labels' | 'native' | 'streamAnswer'> {
  const mode = settings.mode ?? 'text';
  return {
    ...(settings.labels && { labels: settings.labels }),
    native: mode === 'native' || (mode === 'auto' && settings.model.supportsToolCalls === true),
    streamAnswer: settings.output === undefined && settings.checkAnswer === undefined,
  };
}

/**
 * A new run on the conversation, or the resume of the paused run whose approval responses the last
 * message carries (checked now, so a bad one is a 400 before anything streams). A resume's conversation
 * is the messages before that last one: they must be the conversation the run paused on, so a paused
 * message (and its signed state) pasted into another conversation is refused.
 * @throws {UIMessagesError | AgentConfigError | RunStateError} saying what is wrong with the request.
 */
async function readChatRequest(
  uiMessages: unknown,
  settings: RunSettings,
): Promise<{ messages: AgentMessage[] } | { resume: ResumeInput; messages: AgentMessage[] }> {
  const resume = pausedRunIn(uiMessages);
  if (resume) {
    if (ownField(settings, 'secret') === undefined) {
      throw new RunStateError(
        'unsigned',
        'the last message continues a paused run, and this route resumes none (it has no `durable.secret` to check the run state with).',
      );
    }
    const messages = uiMessagesToAgentMessages((uiMessages as unknown[]).slice(0, -1));
    await openResume({ ...settings, messages }, resume);
    return { resume, messages };
  }
  const messages = uiMessagesToAgentMessages(uiMessages);
  readConversation({ messages });
  return { messages };
}
