/**
 * The playground's endpoints that read a run back: its event stream (live, or replayed from its trace) and
 * its trace file as a download. A trace is read only as `runs-store.ts` opens it: a regular file in the
 * runs folder, never through a symbolic link.
 *
 * @module
 */
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseTrace, type TraceHeader } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';
import type { PlaygroundContext } from './context.js';
import type { ForkOrigin } from './fork.js';
import { SECURITY_HEADERS } from './guard.js';
import { HttpError, openEventStream } from './http.js';
import { modelLabel } from './model-label.js';
import { MAX_STEPS_RANGE } from './request-body.js';
import type { RunMessage, RunOptionsMessage } from './run-session.js';
import { openRunFile, RunFileRefused, readRunFile } from './runs-store.js';

/**
 * `GET /api/runs/:id/events`: the run's messages as server-sent events. A run in memory is replayed from
 * `Last-Event-ID` and followed live; an older run is replayed from its trace file. Both end with
 * `stream-end`.
 */
export function getEvents(
  ctx: PlaygroundContext,
  id: string,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const session = ctx.sessions.get(id);
  if (!session) {
    replayTrace(ctx, id, response);
    return;
  }
  const send = openEventStream(response);
  const lastId = Number(request.headers['last-event-id']);
  const unsubscribe = session.subscribe(
    (message, index) => {
      send(message, index);
      if (message.type === 'stream-end') response.end();
    },
    Number.isInteger(lastId) ? lastId + 1 : 0,
  );
  response.on('close', unsubscribe);
}

function replayTrace(ctx: PlaygroundContext, id: string, response: ServerResponse): void {
  const text = traceText(ctx, id);
  let messages: RunMessage[];
  try {
    const trace = parseTrace(text, id);
    const options = runOptionsOf(trace.header);
    messages = [
      ...(options ? [options] : []),
      ...trace.events.flatMap(({ atMs: _, ...line }) => (line.type === 'reasoning-delta' ? [] : [line])),
    ];
  } catch (error) {
    throw new HttpError(422, `the trace cannot be read: ${errorMessage(error)}`);
  }
  const send = openEventStream(response);
  messages.forEach((message, index) => {
    send(message, index);
  });
  send({ type: 'stream-end' } satisfies RunMessage, messages.length);
  response.end();
}

/** The `run-options` message of a run the playground started, from its trace's header. */
function runOptionsOf(header: TraceHeader): RunOptionsMessage | undefined {
  const meta = header.meta ?? {};
  if (meta.source !== 'playground' || typeof meta.model !== 'string') return undefined;
  return {
    type: 'run-options',
    question: header.question,
    model: meta.model,
    modelLabel: modelLabel(meta.model),
    tools: Array.isArray(meta.tools) ? meta.tools.map(String) : [],
    maxSteps: typeof meta.maxSteps === 'number' ? meta.maxSteps : MAX_STEPS_RANGE.default,
    ...(typeof meta.continueFrom === 'string' && { continueFrom: meta.continueFrom }),
    thread: Array.isArray(meta.thread) ? (meta.thread as RunOptionsMessage['thread']) : [],
    ...(typeof meta.instructions === 'string' && { instructions: meta.instructions }),
    ...(typeof meta.temperature === 'number' && { temperature: meta.temperature }),
    ...(forkOriginOf(meta.forkOf) && { forkOf: forkOriginOf(meta.forkOf) as ForkOrigin }),
  };
}

/** A trace header's `forkOf`, when it is well formed (a trace is data: anything else is left out). */
function forkOriginOf(value: unknown): ForkOrigin | undefined {
  const fork = value as
    | { run?: unknown; step?: unknown; edited?: unknown; replayed?: unknown }
    | null
    | undefined;
  if (typeof fork?.run !== 'string' || typeof fork.step !== 'number' || !Number.isInteger(fork.step))
    return undefined;
  const edited = Array.isArray(fork.edited)
    ? fork.edited.filter((e): e is 'turn' | 'observation' => e === 'turn' || e === 'observation')
    : [];
  const replayed = Number.isInteger(fork.replayed) ? (fork.replayed as number) : fork.step - 1;
  return { run: fork.run, step: fork.step, edited, replayed };
}

/**
 * The text of run `id`'s trace.
 *
 * @throws {HttpError} 404 when the id is malformed or no such trace exists; 403 for a trace the playground
 * refuses to read (a symbolic link, not a regular file, outside the runs folder); 422 when it cannot be read.
 */
export function traceText(ctx: PlaygroundContext, id: string): string {
  let text: string | undefined;
  try {
    text = readRunFile(ctx.runsDir, id);
  } catch (error) {
    throw httpErrorOf(error);
  }
  if (text === undefined) throw new HttpError(404, `no run "${id}"`);
  return text;
}

function httpErrorOf(error: unknown): HttpError {
  if (error instanceof RunFileRefused) return new HttpError(403, `refused: ${error.message}`);
  return new HttpError(422, `the trace cannot be read: ${errorMessage(error)}`);
}

/** `GET /api/runs/:id/trace.jsonl`: the trace file, as a download (refused as {@link traceText} says). */
export function getTraceFile(ctx: PlaygroundContext, id: string, response: ServerResponse): void {
  let opened: ReturnType<typeof openRunFile>;
  try {
    opened = openRunFile(ctx.runsDir, id);
  } catch (error) {
    throw httpErrorOf(error);
  }
  if (!opened) throw new HttpError(404, `no run "${id}"`);
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': `attachment; filename="taoloop-${id}.jsonl"`,
  });
  const stream = createReadStream('', { fd: opened.fd, autoClose: true });
  // A read that fails part-way (the disk, the file cut) ends this download, not the server.
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}
