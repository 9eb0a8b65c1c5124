/**
 * The playground's endpoints that do something with a run that has ended: fork it from one of its steps,
 * save it as a regression test for `taoloop test`, delete it. Each reads the run's trace only as
 * `runs-store.ts` opens it (a regular file in the runs folder, never through a symbolic link), and refuses
 * a run still in progress.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { AgentMessage } from '../agent/conversation.js';
import { traceInput } from '../eval/trace-check.js';
import { parseTrace, type Trace } from '../trace/trace.js';
import { errorMessage } from '../util/own.js';
import { offeredSpec, pickTools, startSession } from './api.js';
import { traceText } from './api-traces.js';
import type { PlaygroundContext } from './context.js';
import { planFork } from './fork.js';
import { HttpError, sendJson } from './http.js';
import { MAX_INSTRUCTIONS_CHARS, MAX_STEPS_RANGE, readForkBody, TEMPERATURE_RANGE } from './request-body.js';
import { deleteRunFile, RunFileRefused } from './runs-store.js';

/** Refuses run `id` while it is in progress. */
function refuseLive(ctx: PlaygroundContext, id: string, what: string): void {
  if (ctx.sessions.get(id)?.active)
    throw new HttpError(409, `run "${id}" is still running: stop it or wait for its end to ${what}`);
}

/** Run `id`'s trace, parsed. @throws {HttpError} as `traceText`, and 422 when it cannot be parsed. */
function readRun(ctx: PlaygroundContext, id: string): { text: string; trace: Trace } {
  const text = traceText(ctx, id);
  try {
    return { text, trace: parseTrace(text, id) };
  } catch (error) {
    throw new HttpError(422, `the trace of run "${id}" cannot be read: ${errorMessage(error)}`);
  }
}

/** `DELETE /api/runs/:id`: removes the run's trace from the runs folder (409 while it runs). */
export function deleteRun(ctx: PlaygroundContext, id: string, response: ServerResponse): void {
  refuseLive(ctx, id, 'delete it');
  let deleted: boolean;
  try {
    deleted = deleteRunFile(ctx.runsDir, id);
  } catch (error) {
    if (error instanceof RunFileRefused) throw new HttpError(403, `refused: ${error.message}`);
    throw new HttpError(500, `the trace of run "${id}" cannot be deleted: ${errorMessage(error)}`);
  }
  if (!deleted) throw new HttpError(404, `no run "${id}"`);
  ctx.sessions.delete(id);
  sendJson(response, 200, { ok: true });
}

/**
 * `POST /api/runs/:id/save-test` → `{ file, command }`: writes the run's trace into the tests folder as a
 * fixture `taoloop test` replays (its header says which tools the run had, in `meta.cli`), and says where
 * it is and how to run it. A run saved before is not written again (`existed: true`).
 */
export function postSaveTest(ctx: PlaygroundContext, id: string, response: ServerResponse): void {
  refuseLive(ctx, id, 'save it');
  const { text, trace } = readRun(ctx, id);
  if (trace.result === undefined)
    throw new HttpError(
      422,
      `run "${id}" did not finish (it crashed or was cut off), so it cannot be a test: run it again`,
    );
  const newline = text.indexOf('\n');
  const header = JSON.parse(newline === -1 ? text : text.slice(0, newline)) as Record<string, unknown>;
  const meta = (header.meta ?? {}) as Record<string, unknown>;
  const start = trace.events.find((event) => event.type === 'run-start');
  const tools = Array.isArray(meta.tools)
    ? meta.tools.map(String)
    : start?.type === 'run-start'
      ? start.tools
      : [];
  // What `taoloop test` reads to replay it: the tools by name, the mode and the language the page runs.
  header.meta = { ...meta, cli: { tools, mode: 'text', lang: 'en' }, savedFrom: id };
  const fixture = `${JSON.stringify(header)}${newline === -1 ? '\n' : text.slice(newline)}`;
  const file = path.join(ctx.testsDir, `${id}.jsonl`);
  let existed = false;
  try {
    mkdirSync(ctx.testsDir, { recursive: true });
    writeFileSync(file, fixture, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new HttpError(500, `the test cannot be written to ${shown(ctx, file)}: ${errorMessage(error)}`);
    existed = true;
  }
  const instructions = typeof meta.instructions === 'string' ? meta.instructions : '';
  const flags = [...ctx.testFlags, ...(instructions ? ['--system', instructions] : [])];
  const command = ['npx', 'taoloop', 'test', shown(ctx, ctx.testsDir), ...flags].map(shellWord).join(' ');
  sendJson(response, existed ? 200 : 201, { file: shown(ctx, file), command, existed });
}

/** `file` as the user reads it: relative to the working directory when it is inside it. */
function shown(ctx: PlaygroundContext, file: string): string {
  const relative = path.relative(ctx.cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** A word of a shell command, quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `POST /api/runs/:id/fork` `{ step, turn?, observation? }` → `{ id }`: a new run with the run's question,
 * model, tools and settings, its steps before `step` replayed as recorded (no model call, no tool run),
 * then `step` with the turn and observation the user wrote (see `fork.ts`), then the live model. Only a run
 * this playground started can be forked (its header holds what it was started with).
 */
export async function postFork(
  ctx: PlaygroundContext,
  id: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readForkBody(request);
  refuseLive(ctx, id, 'fork it');
  const { trace } = readRun(ctx, id);
  const meta = trace.header.meta ?? {};
  if (meta.source !== 'playground' || typeof meta.model !== 'string')
    throw new HttpError(400, `run "${id}" was not started by the playground: only its runs can be forked`);
  const spec = offeredSpec(ctx, meta.model);
  const tools = pickTools(ctx.tools, Array.isArray(meta.tools) ? meta.tools.map(String) : undefined);
  let fork: ReturnType<typeof planFork>;
  try {
    fork = planFork(id, trace, body.step, body);
  } catch (error) {
    throw new HttpError(400, errorMessage(error));
  }
  const earlier = earlierOf(trace, meta.continueFrom);
  const maxSteps =
    typeof meta.maxSteps === 'number' && Number.isInteger(meta.maxSteps)
      ? Math.min(Math.max(meta.maxSteps, MAX_STEPS_RANGE.min), MAX_STEPS_RANGE.max)
      : MAX_STEPS_RANGE.default;
  const newId = await startSession(ctx, {
    spec,
    question: trace.header.question,
    tools,
    maxSteps,
    fork,
    ...(earlier && { earlier }),
    // A trace is data: its settings are held to the limits a new run's form is.
    ...(typeof meta.instructions === 'string' &&
      meta.instructions.length <= MAX_INSTRUCTIONS_CHARS && { instructions: meta.instructions }),
    ...(typeof meta.temperature === 'number' &&
      meta.temperature >= TEMPERATURE_RANGE.min &&
      meta.temperature <= TEMPERATURE_RANGE.max && { temperature: meta.temperature }),
  });
  sendJson(response, 201, { id: newId });
}

/** The conversation a follow-up run continued (its messages before its question), to fork it in it. */
function earlierOf(
  trace: Trace,
  continueFrom: unknown,
): { messages: AgentMessage[]; continueFrom: string; conversationId: string } | undefined {
  if (typeof continueFrom !== 'string') return undefined;
  const input = traceInput(trace);
  if (!('messages' in input) || !input.messages) return undefined;
  return {
    messages: input.messages.slice(0, -1) as AgentMessage[],
    continueFrom,
    conversationId: trace.header.conversationId ?? continueFrom,
  };
}
