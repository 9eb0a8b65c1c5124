/**
 * Small node:http helpers for the playground: JSON in and out, errors as `{ error }`, server-sent events.
 *
 * @module
 */
import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './guard.js';

/** A request the client got wrong; answered with `status` and `{ error: message }`. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 64 * 1024;

/** Sends `body` with the security headers (`headers` over them) and `contentType`. */
export function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: OutgoingHttpHeaders = {},
): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/**
 * Sends the file at `file` (a path the server chose, never one from the request) as `contentType`; to a
 * `HEAD` request, only the headers (its size in `content-length`).
 */
export function sendFile(response: ServerResponse, file: string, contentType: string): void {
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': contentType,
    'content-length': statSync(file).size,
  });
  if (response.req?.method === 'HEAD') {
    response.end();
    return;
  }
  const stream = createReadStream(file);
  // A file that cannot be read after all (removed since) ends this response, not the server.
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

/** Sends `value` as JSON. */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** Sends `{ error: message }`. */
export function sendError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: message });
}

/**
 * Reads a JSON object body (`content-type: application/json`, at most 64 KiB).
 *
 * @throws {HttpError} 415 for another content type, 413 for a body too large, 400 for anything but a
 * JSON object.
 */
export async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'send the body as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Starts a server-sent event stream; returns a function that sends one JSON message with its id. */
export function openEventStream(response: ServerResponse): (data: unknown, id?: number) => void {
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
  });
  response.flushHeaders();
  return (data, id) => {
    const idLine = id === undefined ? '' : `id: ${id}\n`;
    // JSON.stringify escapes newlines, so one `data:` line always holds the whole message.
    response.write(`${idLine}data: ${JSON.stringify(data)}\n\n`);
  };
}
