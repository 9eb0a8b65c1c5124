/**
 * The playground's JSON and event-stream endpoints. `server.ts` routes requests here after the origin
 * checks; every handler validates what the page sent before anything runs.
 *
 * @module
 */
import { createReadStream, existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentMessage } from '../agent/conversation.js';
import type { ApprovalDecision, RunResult } from '../agent/types.js';
import type { ModelPrice, PriceTable } from '../models/pricing.js';
import { parseModelSpec } from '../models/spec.js';
import type { Model } from '../models/types.js';
import { toolNeedsApproval } from '../tools/router.js';
import type { SearchDocuments } from '../tools/search-tool.js';
import type { Tool } from '../tools/types.js';
import { readTrace, type TraceHeader } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';
import type { BrowserModelSource } from './browser-assets.js';
import { SECURITY_HEADERS } from './guard.js';
import { HttpError, openEventStream, readJsonObject, sendJson } from './http.js';
import { type RunMessage, type RunOptionsMessage, RunSession } from './run-session.js';
import { listRuns, newRunFileId, runFile } from './runs-store.js';

/** The step limit the page's slider allows. */
export const MAX_STEPS_RANGE = { min: 1, max: 20, default: 8 } as const;
/** Longest question accepted, in characters. */
const MAX_QUESTION_CHARS = 4000;
/** Longest edited tool input accepted, in characters (the tool's own limit still applies). */
const MAX_EDIT_CHARS = 10_000;
/** Finished runs kept in memory for viewers; older ones are read back from their trace files. */
const KEEP_FINISHED = 50;

/** What the endpoints share. */
export interface PlaygroundContext {
  /** Model specs the page may pick from; no other spec is ever resolved. */
  models: readonly string[];
  /** Shown when `models` is empty. */
  modelHelp: string;
  /** Shown under the model picker when there are models (e.g. why a model is not offered). */
  modelNote?: string;
  tools: readonly Tool[];
  createModel: (spec: string) => Promise<Model>;
  runsDir: string;
  prices?: PriceTable;
  /** The price of every offered model, over `prices` (see `PlaygroundOptions.price`). */
  price?: ModelPrice;
  sessions: Map<string, RunSession>;
  /** The model the page runs itself, if any (see `PlaygroundOptions.browserModel`). */
  browserModel?: BrowserModelSource;
  /** The documents the in-page search tool searches. */
  browserDocuments?: SearchDocuments;
}

/**
 * How the model picker names a spec: the model's name first, then where it runs, so that two models on
 * one server, or one model on two servers, read apart (`qwen2.5-7b · 127.0.0.1:8080`,
 * `gpt-4o-mini · OpenAI`). A spec that does not parse is shown as it is.
 */
export function modelLabel(spec: string): string {
  let parsed: ReturnType<typeof parseModelSpec>;
  try {
    parsed = parseModelSpec(spec);
  } catch {
    return spec;
  }
  const PROVIDERS = { openai: 'OpenAI', anthropic: 'Anthropic', google: 'Google', ollama: 'Ollama' };
  switch (parsed.provider) {
    case 'openai-compatible':
      return `${parsed.modelId} · ${new URL(parsed.baseURL).host}`;
    case 'local':
      return `${parsed.source.split(/[\\/]/).pop() || parsed.source} · embedded, runs on this machine`;
    case 'replay':
      return `${parsed.file.split(/[\\/]/).pop() || parsed.file} · replay of a trace`;
    default:
      return `${parsed.modelId} · ${PROVIDERS[parsed.provider]}`;
  }
}

/** `GET /api/config`: the models (spec and label), tools and step limits the page offers. */
export function getConfig(ctx: PlaygroundContext, response: ServerResponse): void {
  sendJson(response, 200, {
    models: ctx.models.map((spec) => ({ spec, label: modelLabel(spec) })),
    modelHelp: ctx.models.length ? undefined : ctx.modelHelp,
    modelNote: ctx.modelNote,
    tools: ctx.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      effects: tool.effects ?? 'read',
      needsApproval: toolNeedsApproval(tool),
    })),
    maxSteps: MAX_STEPS_RANGE,
    ...(ctx.browserModel && { browserModel: inPageModel(ctx, ctx.browserModel) }),
  });
}

/**
 * The in-page model as the page sees it: label, where to fetch the GGUF, and the offered tools that run in
 * a page (read-only: the calculator, and search when there are documents to send).
 */
function inPageModel(ctx: PlaygroundContext, source: BrowserModelSource) {
  const runnable = (tool: Tool) =>
    (tool.name === 'calculator' || (tool.name === 'search' && ctx.browserDocuments !== undefined)) &&
    (tool.effects ?? 'read') === 'read';
  return { label: source.label, url: source.url, tools: ctx.tools.filter(runnable).map((tool) => tool.name) };
}

/** `GET /api/browser-documents`: the documents of the in-page search tool, as strings. */
export function getBrowserDocuments(ctx: PlaygroundContext, response: ServerResponse): void {
  if (!ctx.browserModel || !ctx.browserDocuments)
    throw new HttpError(404, 'no documents for the in-page model');
  sendJson(response, 200, { documents: ctx.browserDocuments });
}

/** `GET /api/runs`: past and current runs, newest first. */
export function getRuns(ctx: PlaygroundContext, response: ServerResponse): void {
  const runs = listRuns(ctx.runsDir);
  const live = runs.map((run) => (ctx.sessions.get(run.id)?.active ? { ...run, status: 'running' } : run));
  sendJson(response, 200, { runs: live });
}

/**
 * `POST /api/runs` `{ question, model, tools, maxSteps, continueFrom? }` → `{ id }`: starts a run.
 * With `continueFrom` (the id of a run that answered), the question is a follow-up in that run's
 * conversation.
 */
export async function postRun(
  ctx: PlaygroundContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readJsonObject(request);
  const question = typeof body.question === 'string' ? body.question.trim() : '';
  if (!question) throw new HttpError(400, 'type a question first');
  if (question.length > MAX_QUESTION_CHARS)
    throw new HttpError(400, `the question is over ${MAX_QUESTION_CHARS} characters`);
  const spec = body.model;
  if (typeof spec !== 'string' || !ctx.models.includes(spec))
    throw new HttpError(400, `pick one of the configured models: ${ctx.models.join(', ') || '(none)'}`);
  const tools = pickTools(ctx.tools, body.tools);
  const maxSteps = body.maxSteps ?? MAX_STEPS_RANGE.default;
  if (
    typeof maxSteps !== 'number' ||
    !Number.isInteger(maxSteps) ||
    maxSteps < MAX_STEPS_RANGE.min ||
    maxSteps > MAX_STEPS_RANGE.max
  )
    throw new HttpError(
      400,
      `maxSteps must be a whole number from ${MAX_STEPS_RANGE.min} to ${MAX_STEPS_RANGE.max}`,
    );
  const earlier = body.continueFrom === undefined ? undefined : conversationOf(ctx, body.continueFrom);
  let model: Model;
  try {
    model = await ctx.createModel(spec);
  } catch (error) {
    throw new HttpError(400, `the model "${spec}" cannot be used: ${errorMessage(error)}`);
  }
  const id = newRunFileId(ctx.runsDir);
  const file = runFile(ctx.runsDir, id) as string;
  const session = new RunSession({
    id,
    file,
    model,
    spec,
    question,
    tools,
    maxSteps,
    ...(earlier && { earlier }),
    ...withPrices(ctx, model.id),
  });
  ctx.sessions.set(id, session);
  void session.done.then(() => forgetOldSessions(ctx.sessions));
  sendJson(response, 201, { id });
}

/** The conversation after run `id` (which must have answered), to continue it with a follow-up. */
function conversationOf(
  ctx: PlaygroundContext,
  id: unknown,
): { messages: AgentMessage[]; continueFrom: string; conversationId: string } {
  if (typeof id !== 'string') throw new HttpError(400, 'continueFrom must be the id of an earlier run');
  const session = ctx.sessions.get(id);
  let result: RunResult | undefined;
  let conversationId = id;
  if (session) {
    if (session.active) throw new HttpError(409, `run "${id}" is still running: wait for its answer`);
    const end = session.messages.find((m) => m.type === 'run-end');
    result = end?.type === 'run-end' ? end.result : undefined;
    conversationId = session.conversationId;
  } else {
    try {
      const trace = readTrace(traceFile(ctx, id));
      result = trace.result;
      conversationId = trace.header.conversationId ?? id;
    } catch (error) {
      if (error instanceof HttpError) throw new HttpError(400, `continueFrom: ${error.message}`);
      throw new HttpError(422, `the trace of run "${id}" cannot be read: ${errorMessage(error)}`);
    }
  }
  if (result?.status !== 'answered')
    throw new HttpError(400, `run "${id}" has no answer to follow up on: ask a new question instead`);
  return { messages: result.messages, continueFrom: id, conversationId };
}

/** The run's price table: the playground's `prices`, and its `price` for the run's model. */
function withPrices(ctx: PlaygroundContext, modelId: string): { prices?: PriceTable } {
  if (ctx.price) return { prices: { ...ctx.prices, [modelId]: ctx.price } };
  return ctx.prices ? { prices: ctx.prices } : {};
}

/** The offered tools named in `names` (all of them when `names` is absent). */
function pickTools(offered: readonly Tool[], names: unknown): Tool[] {
  if (names === undefined) return [...offered];
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw new HttpError(400, 'tools must be a list of tool names');
  if (names.length === 0)
    throw new HttpError(
      400,
      `tick at least one tool: the agent answers by calling tools (offered: ${offered.map((t) => t.name).join(', ')})`,
    );
  const unknown = names.filter((name) => !offered.some((tool) => tool.name === name));
  if (unknown.length) throw new HttpError(400, `unknown tools: ${unknown.join(', ')}`);
  return offered.filter((tool) => names.includes(tool.name));
}

function forgetOldSessions(sessions: Map<string, RunSession>): void {
  const finished = [...sessions.values()].filter((s) => !s.active);
  for (const session of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)))
    sessions.delete(session.id);
}

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
    replayTrace(traceFile(ctx, id), response);
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

function replayTrace(file: string, response: ServerResponse): void {
  let messages: RunMessage[];
  try {
    const trace = readTrace(file);
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
    tools: Array.isArray(meta.tools) ? meta.tools.map(String) : [],
    maxSteps: typeof meta.maxSteps === 'number' ? meta.maxSteps : MAX_STEPS_RANGE.default,
    ...(typeof meta.continueFrom === 'string' && { continueFrom: meta.continueFrom }),
    thread: Array.isArray(meta.thread) ? (meta.thread as RunOptionsMessage['thread']) : [],
  };
}

/** The trace file of run `id`; 404 when the id is malformed or no such file exists. */
function traceFile(ctx: PlaygroundContext, id: string): string {
  const file = runFile(ctx.runsDir, id);
  if (!file || !existsSync(file)) throw new HttpError(404, `no run "${id}"`);
  return file;
}

/** `GET /api/runs/:id/trace.jsonl`: the trace file, as a download. */
export function getTraceFile(ctx: PlaygroundContext, id: string, response: ServerResponse): void {
  const file = traceFile(ctx, id);
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': `attachment; filename="taoloop-${id}.jsonl"`,
  });
  createReadStream(file).pipe(response);
}

/**
 * `POST /api/runs/:id/approvals/:requestId` with `{ type: 'approve' }`, `{ type: 'reject', reason? }` or
 * `{ type: 'edit', input }`: answers a waiting approval request (409 when it no longer waits).
 */
export async function postApproval(
  ctx: PlaygroundContext,
  id: string,
  requestId: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const session = liveSession(ctx, id);
  const decision = parseDecision(await readJsonObject(request));
  if (!session.decide(requestId, decision))
    throw new HttpError(409, `approval request ${requestId} is not waiting (already answered?)`);
  sendJson(response, 200, { ok: true });
}

function parseDecision(body: Record<string, unknown>): ApprovalDecision {
  switch (body.type) {
    case 'approve':
      return { type: 'approve' };
    case 'reject':
      return typeof body.reason === 'string' && body.reason.trim()
        ? { type: 'reject', reason: body.reason.trim().slice(0, 500) }
        : { type: 'reject' };
    case 'edit':
      if (typeof body.input !== 'string' || body.input.length > MAX_EDIT_CHARS)
        throw new HttpError(
          400,
          `an edit needs the new input as a string of at most ${MAX_EDIT_CHARS} characters`,
        );
      return { type: 'edit', input: body.input };
    default:
      throw new HttpError(400, 'type must be "approve", "reject" or "edit"');
  }
}

/** `POST /api/runs/:id/stop`: aborts the run. */
export function postStop(ctx: PlaygroundContext, id: string, response: ServerResponse): void {
  liveSession(ctx, id).stop();
  sendJson(response, 202, { ok: true });
}

function liveSession(ctx: PlaygroundContext, id: string): RunSession {
  const session = ctx.sessions.get(id);
  if (!session) throw new HttpError(404, `no run "${id}" in progress`);
  return session;
}
