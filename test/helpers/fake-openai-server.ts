/**
 * A small local OpenAI-compatible chat-completions server for tests: scripted replies, recorded
 * request bodies, streaming (SSE) and non-streaming answers, optional failures.
 *
 * It mimics the parts of https://platform.openai.com/docs/api-reference/chat that the AI SDK's
 * OpenAI-compatible provider reads: `choices[0].message.content` / `delta.content`,
 * `finish_reason`, and `usage` (`prompt_tokens`, `completion_tokens`,
 * `prompt_tokens_details.cached_tokens`).
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions request body as the server parsed it. */
export interface ParsedRequestBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  stop?: string | string[];
  temperature?: number;
  max_tokens?: number;
  [key: string]: unknown;
}

/** Token counts the server reports. Unset counts are estimated (characters / 4, rounded up). */
export interface FakeUsage {
  promptTokens?: number;
  completionTokens?: number;
  /** Sent as `prompt_tokens_details.cached_tokens`; without it the field is left out entirely. */
  cachedTokens?: number;
}

/**
 * A scripted reply: text, or optional text plus tool calls (native tool calling, several per reply allowed)
 * and `reasoning`, sent apart from the text as DeepSeek, vLLM and llama.cpp servers do (`reasoning_content`:
 * streamed as deltas before the text, or on the message). `<think>` blocks are simply part of the text.
 */
export type FakeReply =
  | string
  | { text?: string; toolCalls?: { name: string; arguments: string }[]; reasoning?: string };

/** An HTTP error answer: status, OpenAI-style error message, response headers. */
export interface FakeFailure {
  status: number;
  message?: string;
  /**
   * Response headers. @default `{ 'retry-after-ms': '0' }` (keeps the AI SDK's retries instant);
   * given headers replace that default, e.g. `{ 'retry-after': '1' }`.
   */
  headers?: Record<string, string>;
}

/** Options for {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /**
   * The scripted assistant texts, one per served call, or a function of the request and the call
   * index (0-based, counting only calls that were answered, not `failFirst` failures). Running out
   * of scripted replies answers HTTP 400 with a message saying so.
   */
  replies: FakeReply[] | ((request: ParsedRequestBody, callIndex: number) => FakeReply);
  /**
   * Return the whole scripted text even when the request has `stop`.
   * @default false (the reply is cut before the first stop sequence, as real servers do)
   */
  ignoreStop?: boolean;
  /** Answer the first `count` requests with HTTP `status` and an OpenAI-style error body. */
  failFirst?: FakeFailure & { count: number };
  /**
   * Decides per request (0-based index over all requests, failed ones included) whether to fail it;
   * checked after `failFirst`. E.g. `(_, i) => (i >= 1 ? { status: 500 } : undefined)`.
   */
  failWhen?: (request: ParsedRequestBody, requestIndex: number) => FakeFailure | undefined;
  /** Wait this long before answering (headers included), in milliseconds. @default 0 */
  responseDelayMs?: number;
  /** Streams only: destroy the socket after this many SSE events, mid-stream, without `[DONE]`. */
  cutStreamAfterEvents?: number;
  /**
   * Streams only: after the scripted text (stop sequences ignored), keep sending this text in chunks
   * until the client disconnects, as a server that ignores `stop` and never finishes.
   */
  keepWriting?: string;
  /**
   * Usage to report, or a function of the request and the reply's output (its text, then each tool call's
   * name and arguments: a server that bills); `false` reports none. @default estimated counts, no cached
   * tokens
   */
  usage?: FakeUsage | false | ((request: ParsedRequestBody, text: string) => FakeUsage);
  /**
   * Answer any request that carries `stop` with HTTP 400 "Unsupported parameter: 'stop' ...", as OpenAI's
   * reasoning models do. @default false
   */
  rejectStop?: boolean;
  /** Characters per streamed content delta. @default 4 */
  chunkSize?: number;
  /** Pause between streamed chunks, in milliseconds. @default 0 */
  chunkDelayMs?: number;
  /**
   * Keep every parsed request in `requests`. Benchmarks that send thousands of requests turn it off, so
   * the server's heap (and its garbage collector's pauses, which delay answers) does not grow. @default true
   */
  keepRequests?: boolean;
  /** The model ids `GET /v1/models` lists (`{ object: 'list', data: [{ id, object: 'model' }] }`). @default ['m'] */
  models?: string[];
}

/** A running fake server. */
export interface FakeOpenAI {
  /** Base URL ending with `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  baseURL: string;
  /** Every parsed request body, in arrival order (failed ones included); empty with `keepRequests: false`. */
  requests: ParsedRequestBody[];
  /** The `authorization` header of each request, in arrival order (`undefined` when none was sent). */
  authorizations: (string | undefined)[];
  /** Requests received, kept or not. */
  readonly received: number;
  /** Streams the client stopped reading before the end (the connection was closed early). */
  readonly abandonedStreams: number;
  /** Requests whose connection closed before the response was complete (streamed or not). */
  readonly disconnects: number;
  /** Stops the server and closes open connections. */
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 on a free port. */
export async function startFakeOpenAI(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const requests: ParsedRequestBody[] = [];
  const authorizations: (string | undefined)[] = [];
  let failuresLeft = options.failFirst?.count ?? 0;
  let served = 0;
  let abandonedStreams = 0;
  let disconnects = 0;
  let received = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => sendError(res, 500, String(error)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/v1/models') {
      const data = (options.models ?? ['m']).map((id) => ({ id, object: 'model', owned_by: 'fake' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      sendError(res, 404, `fake server: no route for ${req.method} ${req.url}`);
      return;
    }
    const body = JSON.parse(await readBody(req)) as ParsedRequestBody;
    const requestIndex = received++;
    authorizations.push(req.headers.authorization);
    if (options.keepRequests !== false) requests.push(body);
    res.on('close', () => {
      if (!res.writableFinished) disconnects += 1;
    });
    if (options.responseDelayMs !== undefined && options.responseDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, options.responseDelayMs));
      if (res.destroyed) return;
    }
    let failure: FakeFailure | undefined;
    if (options.failFirst !== undefined && failuresLeft > 0) {
      failuresLeft -= 1;
      failure = options.failFirst;
    } else {
      failure = options.failWhen?.(body, requestIndex);
    }
    if (failure !== undefined) {
      sendError(res, failure.status, failure.message ?? 'fake failure', failure.headers);
      return;
    }
    if (options.rejectStop === true && body.stop !== undefined) {
      sendError(res, 400, "Unsupported parameter: 'stop' is not supported with this model.");
      return;
    }
    const scripted = scriptedReply(options.replies, body, served);
    if (scripted === undefined) {
      sendError(res, 400, `fake server: no scripted reply for call #${served + 1}`);
      return;
    }
    served += 1;
    const reply =
      typeof scripted === 'string'
        ? { text: scripted, toolCalls: [], reasoning: undefined }
        : { text: scripted.text ?? '', toolCalls: scripted.toolCalls ?? [], reasoning: scripted.reasoning };
    const ignoreStop = options.ignoreStop === true || options.keepWriting !== undefined;
    const text = ignoreStop ? reply.text : cutAtStop(reply.text, body.stop);
    const toolCalls = reply.toolCalls.map((call, i) => ({
      id: `call_${served}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const finishReason = toolCalls.length ? 'tool_calls' : 'stop';
    const output = text + reply.toolCalls.map((call) => call.name + call.arguments).join('');
    const usageOption = typeof options.usage === 'function' ? options.usage(body, output) : options.usage;
    const usage = usageOption === false ? undefined : usageJson(usageOption ?? {}, body, text);
    if (body.stream === true) {
      const complete = await sendStream(
        res,
        body,
        { text, toolCalls, finishReason, reasoning: reply.reasoning },
        usage,
        options,
      );
      if (!complete) abandonedStreams += 1;
    } else {
      sendJson(res, 200, {
        id: `chatcmpl-fake-${++completionsAnswered}`,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              ...(reply.reasoning === undefined ? {} : { reasoning_content: reply.reasoning }),
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        ...(usage === undefined ? {} : { usage }),
      });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    get received() {
      return received;
    },
    get abandonedStreams() {
      return abandonedStreams;
    },
    get disconnects() {
      return disconnects;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function scriptedReply(
  replies: FakeOpenAIOptions['replies'],
  body: ParsedRequestBody,
  callIndex: number,
): FakeReply | undefined {
  return typeof replies === 'function' ? replies(body, callIndex) : replies[callIndex];
}

/** Cuts `text` before the earliest stop sequence, as OpenAI does (the stop text is not returned). */
export function cutAtStop(text: string, stop: string | string[] | undefined): string {
  const sequences = stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop;
  let end = text.length;
  for (const sequence of sequences) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

function usageJson(usage: FakeUsage, body: ParsedRequestBody, text: string): Record<string, unknown> {
  const promptChars = body.messages.reduce((sum, message) => sum + String(message.content).length, 0);
  const promptTokens = usage.promptTokens ?? Math.ceil(promptChars / 4);
  const completionTokens = usage.completionTokens ?? Math.ceil(text.length / 4);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(usage.cachedTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
  };
}

/** Completions answered so far by any fake server: each gets its own id, as OpenAI's do (clients key on them). */
let completionsAnswered = 0;

async function sendStream(
  res: ServerResponse,
  body: ParsedRequestBody,
  reply: { text: string; toolCalls: unknown[]; finishReason: string; reasoning?: string | undefined },
  usage: Record<string, unknown> | undefined,
  options: FakeOpenAIOptions,
): Promise<boolean> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const base = {
    id: `chatcmpl-fake-${++completionsAnswered}`,
    object: 'chat.completion.chunk',
    created: 0,
    model: body.model,
  };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ ...base, choices, ...extra });
  const size = Math.max(1, options.chunkSize ?? 4);
  const events: unknown[] = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
  ];
  const { text, reasoning = '' } = reply;
  for (let at = 0; at < reasoning.length; at += size) {
    const delta = { reasoning_content: reasoning.slice(at, at + size) };
    events.push(chunk([{ index: 0, delta, finish_reason: null }]));
  }
  for (let at = 0; at < text.length; at += size) {
    events.push(chunk([{ index: 0, delta: { content: text.slice(at, at + size) }, finish_reason: null }]));
  }
  reply.toolCalls.forEach((call, index) => {
    events.push(
      chunk([{ index: 0, delta: { tool_calls: [{ index, ...(call as object) }] }, finish_reason: null }]),
    );
  });
  events.push(chunk([{ index: 0, delta: {}, finish_reason: reply.finishReason }]));
  if (usage !== undefined && body.stream_options?.include_usage === true) events.push(chunk([], { usage }));
  if (options.keepWriting !== undefined) return keepWriting(res, events, chunk, options);
  let sent = 0;
  for (const event of events) {
    if (res.destroyed) return false;
    if (sent === options.cutStreamAfterEvents) {
      // Let the client read what was sent (headers and events), then cut the connection.
      await pause(50);
      res.socket?.destroy();
      return false;
    }
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    sent += 1;
    if (options.chunkDelayMs !== undefined && options.chunkDelayMs > 0) await pause(options.chunkDelayMs);
  }
  res.end('data: [DONE]\n\n');
  return true;
}

function pause(ms: number | undefined): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms ?? 0));
}

/** Sends the reply's text events, then `options.keepWriting` over and over until the client leaves. */
async function keepWriting(
  res: ServerResponse,
  events: unknown[],
  chunk: (choices: unknown[]) => unknown,
  options: FakeOpenAIOptions,
): Promise<boolean> {
  const textEvents = events.slice(0, -1); // everything but the finish chunk: this reply never finishes
  for (const event of textEvents) {
    if (res.destroyed) return false;
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    await pause(options.chunkDelayMs);
  }
  const filler = options.keepWriting ?? '';
  for (let sent = 0; !res.destroyed && sent < 100_000; sent += 1) {
    res.write(
      `data: ${JSON.stringify(chunk([{ index: 0, delta: { content: filler }, finish_reason: null }]))}\n\n`,
    );
    await pause(options.chunkDelayMs);
  }
  return false;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** OpenAI-style error body; `retry-after-ms: 0` (the default headers) keeps the AI SDK's retries instant in tests. */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = { 'retry-after-ms': '0' },
): void {
  sendJson(res, status, { error: { message, type: 'fake_error', code: null } }, headers);
}
