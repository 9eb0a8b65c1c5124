/**
 * A small local Anthropic Messages API server for tests: scripted replies, recorded requests, JSON
 * and SSE answers, tool use, prompt-cache usage, optional failures.
 *
 * It mimics https://docs.anthropic.com/en/api/messages and the event stream of
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming: `message_start` (with the input
 * usage, cache fields included), `content_block_start` / `content_block_delta` (`text_delta`,
 * `input_json_delta`) / `content_block_stop` per block, `message_delta` (stop reason, output usage),
 * `message_stop`. Errors are `{ type: 'error', error: { type, message } }`.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cutAtStop, type FakeReply } from './fake-openai-server.js';

/** A Messages API request body as the server parsed it. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: Array<{ role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> }>;
  system?: string | Array<{ type: 'text'; text: string }>;
  stop_sequences?: string[];
  temperature?: number;
  stream?: boolean;
  tools?: Array<{ name: string; description?: string; input_schema: Record<string, unknown> }>;
  [key: string]: unknown;
}

/** Usage the server reports; unset token counts are estimated (characters / 4). */
export interface FakeAnthropicUsage {
  /** Input tokens not read from or written to the cache (Anthropic's `input_tokens`). */
  inputTokens?: number;
  outputTokens?: number;
  /** Sent as `cache_read_input_tokens`; left out when unset. */
  cacheReadInputTokens?: number;
  /** Sent as `cache_creation_input_tokens`; left out when unset. */
  cacheCreationInputTokens?: number;
}

/** Options for {@link startFakeAnthropic}. Tool-call `arguments` are JSON text, as for the OpenAI fake. */
export interface FakeAnthropicOptions {
  /** One reply per answered call, or a function of the request and the call index. */
  replies: FakeReply[] | ((request: AnthropicRequestBody, callIndex: number) => FakeReply);
  /** Return the whole text even when it contains a stop sequence. @default false */
  ignoreStop?: boolean;
  /** Answer the first `count` requests with HTTP `status` (e.g. 529 `overloaded_error`). */
  failFirst?: { status: number; count: number; message?: string };
  /**
   * Usage to report, or a function of the request and the reply's output (its text, then each tool call's
   * name and arguments: a server that bills).
   */
  usage?: FakeAnthropicUsage | ((request: AnthropicRequestBody, text: string) => FakeAnthropicUsage);
  /** Characters per `text_delta` / `input_json_delta`. @default 5 */
  chunkSize?: number;
}

/** A running fake server. */
export interface FakeAnthropic {
  /** Base URL ending with `/v1`, for `createAnthropic({ baseURL })` or `ANTHROPIC_BASE_URL`. */
  baseURL: string;
  /** Every parsed request body, in arrival order. */
  requests: AnthropicRequestBody[];
  /** The headers of every request, in arrival order. */
  headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

interface Block {
  type: 'text' | 'tool_use';
  text?: string;
  id?: string;
  name?: string;
  input?: string;
}

/** Starts the server on 127.0.0.1 on a free port. */
export async function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeAnthropic> {
  const requests: AnthropicRequestBody[] = [];
  const headers: IncomingMessage['headers'][] = [];
  let failuresLeft = options.failFirst?.count ?? 0;
  let served = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => sendError(res, 500, 'api_error', String(error)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      sendError(res, 404, 'not_found_error', `fake server: no route for ${req.method} ${req.url}`);
      return;
    }
    const body = JSON.parse(await readBody(req)) as AnthropicRequestBody;
    requests.push(body);
    headers.push(req.headers);
    if (options.failFirst !== undefined && failuresLeft > 0) {
      failuresLeft -= 1;
      const { status, message } = options.failFirst;
      sendError(res, status, status === 529 ? 'overloaded_error' : 'api_error', message ?? 'fake failure');
      return;
    }
    const scripted =
      typeof options.replies === 'function' ? options.replies(body, served) : options.replies[served];
    if (scripted === undefined) {
      sendError(res, 400, 'invalid_request_error', `fake server: no scripted reply for call #${served + 1}`);
      return;
    }
    served += 1;
    const reply =
      typeof scripted === 'string'
        ? { text: scripted, toolCalls: [] }
        : { ...scripted, toolCalls: scripted.toolCalls ?? [] };
    const fullText = reply.text ?? '';
    const text = options.ignoreStop === true ? fullText : cutAtStop(fullText, body.stop_sequences);
    const stopSequence =
      text.length < fullText.length
        ? body.stop_sequences?.find((s) => fullText.startsWith(s, text.length))
        : undefined;
    const blocks: Block[] = [
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...reply.toolCalls.map((call, i) => ({
        type: 'tool_use' as const,
        id: `toolu_${served}_${i}`,
        name: call.name,
        input: call.arguments,
      })),
    ];
    const stopReason = reply.toolCalls.length ? 'tool_use' : stopSequence ? 'stop_sequence' : 'end_turn';
    const output = text + reply.toolCalls.map((call) => call.name + call.arguments).join('');
    const usageOption = typeof options.usage === 'function' ? options.usage(body, output) : options.usage;
    const usage = usageJson(usageOption ?? {}, body, text);
    const message = { stopReason, stopSequence: stopSequence ?? null, usage };
    if (body.stream === true) sendStream(res, body, blocks, message, options.chunkSize ?? 5);
    else sendJson(res, 200, messageJson(body, blocks, message));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

interface MessageEnd {
  stopReason: string;
  stopSequence: string | null;
  usage: Record<string, number>;
}

function usageJson(
  usage: FakeAnthropicUsage,
  body: AnthropicRequestBody,
  text: string,
): Record<string, number> {
  const chars = JSON.stringify(body.messages).length + JSON.stringify(body.system ?? '').length;
  return {
    input_tokens: usage.inputTokens ?? Math.ceil(chars / 4),
    output_tokens: usage.outputTokens ?? Math.ceil(text.length / 4),
    ...(usage.cacheReadInputTokens === undefined
      ? {}
      : { cache_read_input_tokens: usage.cacheReadInputTokens }),
    ...(usage.cacheCreationInputTokens === undefined
      ? {}
      : { cache_creation_input_tokens: usage.cacheCreationInputTokens }),
  };
}

function blockJson(block: Block): Record<string, unknown> {
  return block.type === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'tool_use', id: block.id, name: block.name, input: JSON.parse(block.input ?? '{}') };
}

/** Messages answered so far by any fake server: each gets its own id, as Anthropic's do (clients key on them). */
let messagesAnswered = 0;

function messageJson(body: AnthropicRequestBody, blocks: Block[], end: MessageEnd): Record<string, unknown> {
  return {
    id: `msg_fake_${++messagesAnswered}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: blocks.map(blockJson),
    stop_reason: end.stopReason,
    stop_sequence: end.stopSequence,
    usage: end.usage,
  };
}

function sendStream(
  res: ServerResponse,
  body: AnthropicRequestBody,
  blocks: Block[],
  end: MessageEnd,
  chunkSize: number,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: Record<string, unknown>) =>
    res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  const { output_tokens, ...inputUsage } = end.usage;
  const start = messageJson(body, [], { ...end, stopReason: '', stopSequence: null });
  send({
    type: 'message_start',
    message: { ...start, stop_reason: null, usage: { ...inputUsage, output_tokens: 1 } },
  });
  send({ type: 'ping' });
  blocks.forEach((block, index) => {
    const opening = block.type === 'text' ? { type: 'text', text: '' } : { ...blockJson(block), input: {} };
    send({ type: 'content_block_start', index, content_block: opening });
    const whole = block.type === 'text' ? (block.text ?? '') : (block.input ?? '');
    for (let at = 0; at < whole.length; at += chunkSize) {
      const piece = whole.slice(at, at + chunkSize);
      const delta =
        block.type === 'text'
          ? { type: 'text_delta', text: piece }
          : { type: 'input_json_delta', partial_json: piece };
      send({ type: 'content_block_delta', index, delta });
    }
    send({ type: 'content_block_stop', index });
  });
  send({
    type: 'message_delta',
    delta: { stop_reason: end.stopReason, stop_sequence: end.stopSequence },
    usage: { output_tokens },
  });
  send({ type: 'message_stop' });
  res.end();
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
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(JSON.stringify(body));
}

/** Anthropic's error body; `retry-after-ms: 0` keeps the AI SDK's retries instant in tests. */
function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } }, { 'retry-after-ms': '0' });
}
