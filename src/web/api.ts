/**
 * The playground's JSON and event-stream endpoints. `server.ts` routes requests here after the origin
 * checks; every handler validates what the page sent before anything runs.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentMessage } from '../agent/conversation.js';
import type { RunResult } from '../agent/types.js';
import type { PriceTable } from '../models/pricing.js';
import type { Model } from '../models/types.js';
import { toolNeedsApproval } from '../tools/router.js';
import type { Tool } from '../tools/types.js';
import { parseTrace } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';
import { traceText } from './api-traces.js';
import type { BrowserModelSource } from './browser-assets.js';
import type { PlaygroundContext } from './context.js';
import { HttpError, sendJson } from './http.js';
import { modelLabel } from './model-label.js';
import { MAX_STEPS_RANGE, readDecision, readRunBody, TEMPERATURE_RANGE } from './request-body.js';
import { RunSession, type RunSessionOptions } from './run-session.js';
import { listRuns, newRunFileId, type RunSummary, runFile } from './runs-store.js';

export { getEvents, getTraceFile } from './api-traces.js';
export type { PlaygroundContext } from './context.js';
export { modelLabel } from './model-label.js';
export { MAX_STEPS_RANGE } from './request-body.js';

/** Finished runs kept in memory for viewers; older ones are read back from their trace files. */
const KEEP_FINISHED = 50;
/** Runs in progress at once unless the playground is told otherwise (`PlaygroundOptions.maxRuns`). */
export const DEFAULT_MAX_RUNS = 4;

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
    temperature: TEMPERATURE_RANGE,
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

/**
 * `GET /api/runs[?q=&status=&model=]`: past and current runs, newest first, each with `modelLabel`, the
 * model as the picker names it (from the spec the page picked, for a playground run; else from the
 * trace's model id). `q` keeps the runs whose question or answer holds each of its words, `status` those
 * that ended so (`running` for those in progress), `model` those of that model (its label). `filters`
 * says which statuses and models there are to pick from.
 */
export function getRuns(ctx: PlaygroundContext, url: URL, response: ServerResponse): void {
  const query = (name: string) => url.searchParams.get(name)?.slice(0, 500).trim() || undefined;
  const wanted = { text: query('q'), status: query('status'), model: query('model') };
  const statuses = new Set<string>();
  const models = new Set<string>();
  const label = (run: RunSummary) => modelLabel(run.model ?? run.modelId);
  const status = (run: RunSummary) => (ctx.sessions.get(run.id)?.active ? 'running' : run.status);
  const runs = listRuns(
    ctx.runsDir,
    50,
    {
      ...(wanted.text !== undefined && { text: wanted.text }),
      keep: (run) =>
        (wanted.status === undefined || status(run) === wanted.status) &&
        (wanted.model === undefined || label(run) === wanted.model),
    },
    (run) => {
      statuses.add(status(run));
      models.add(label(run));
    },
  ).map((run) => {
    // The answer is searched here, not sent: the list stays small.
    const { model: _, answer: __, ...shown } = run;
    return { ...shown, status: status(run), modelLabel: label(run) };
  });
  sendJson(response, 200, {
    runs,
    filters: { statuses: [...statuses].sort(), models: [...models].sort() },
  });
}

/**
 * `POST /api/runs` `{ question, model, tools, maxSteps, instructions?, temperature?, continueFrom? }` →
 * `{ id }`: starts a run. With `continueFrom` (the id of a run that answered), the question is a follow-up
 * in that run's conversation. Every field is read as the client's own (see `request-body.ts`). Refused
 * with 429 while `ctx.maxRuns` runs are in progress, and with 502 when the model does not answer
 * (`model-check.ts`).
 */
export async function postRun(
  ctx: PlaygroundContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readRunBody(request);
  offeredSpec(ctx, body.model);
  const tools = pickTools(ctx.tools, body.tools);
  const earlier = body.continueFrom === undefined ? undefined : conversationOf(ctx, body.continueFrom);
  const id = await startSession(ctx, {
    spec: body.model,
    question: body.question,
    tools,
    maxSteps: body.maxSteps ?? MAX_STEPS_RANGE.default,
    ...(earlier && { earlier }),
    ...(body.instructions !== undefined && { instructions: body.instructions }),
    ...(body.temperature !== undefined && { temperature: body.temperature }),
  });
  sendJson(response, 201, { id });
}

/** `spec` when it is one of the offered model specs. @throws {HttpError} 400 saying which are. */
export function offeredSpec(ctx: PlaygroundContext, spec: unknown): string {
  if (typeof spec !== 'string' || !ctx.models.includes(spec))
    throw new HttpError(400, `pick one of the configured models: ${ctx.models.join(', ') || '(none)'}`);
  return spec;
}

/** What {@link startSession} starts: a run's options, with the model still a spec. */
export type SessionRequest = Omit<RunSessionOptions, 'id' | 'file' | 'model' | 'spec'> & { spec: unknown };

/**
 * Starts a run session and returns its id: the model spec checked (one of the offered ones, and it
 * answers), the limit on runs in progress kept, the model made.
 *
 * @throws {HttpError} 400 for a spec not offered or a model that cannot be made, 429 at the limit, 502
 * when the model does not answer.
 */
export async function startSession(ctx: PlaygroundContext, run: SessionRequest): Promise<string> {
  const { spec: given, ...options } = run;
  const spec = offeredSpec(ctx, given);
  const running = [...ctx.sessions.values()].filter((session) => session.active).length + ctx.starting;
  if (running >= ctx.maxRuns)
    throw new HttpError(
      429,
      `${running} runs are already running; wait for one to finish or raise --max-runs`,
    );
  ctx.starting += 1;
  let model: Model;
  try {
    const problem = await ctx.checkModel(spec);
    if (problem !== undefined) throw new HttpError(502, problem);
    model = await ctx.createModel(spec);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, `the model "${spec}" cannot be used: ${errorMessage(error)}`);
  } finally {
    ctx.starting -= 1;
  }
  const id = newRunFileId(ctx.runsDir, new Date(), options.earlier?.conversationId);
  const file = runFile(ctx.runsDir, id) as string;
  const session = new RunSession({ ...options, id, file, model, spec, ...withPrices(ctx, model.id) });
  ctx.sessions.set(id, session);
  void session.done.then(() => forgetOldSessions(ctx.sessions));
  return id;
}

/** The conversation after run `id` (which must have answered), to continue it with a follow-up. */
function conversationOf(
  ctx: PlaygroundContext,
  id: string,
): { messages: AgentMessage[]; continueFrom: string; conversationId: string } {
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
      const trace = parseTrace(traceText(ctx, id), id);
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
export function pickTools(offered: readonly Tool[], names: string[] | undefined): Tool[] {
  if (names === undefined) return [...offered];
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
  const decision = await readDecision(request);
  if (!session.decide(requestId, decision))
    throw new HttpError(409, `approval request ${requestId} is not waiting (already answered?)`);
  sendJson(response, 200, { ok: true });
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
