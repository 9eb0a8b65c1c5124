/**
 * `startPlayground`: a small node:http server with a page to run an agent and watch its trace live.
 *
 * Routes (all behind the Host / Origin checks of `guard.ts`; on a non-loopback host every `/api/` route
 * also needs the access token):
 * - `GET /`, `/app.js`, `/app.css`: the page (with the in-page model also `/assets/...` and the GGUF at
 *   `/api/browser-model.gguf`); `HEAD` of each of these answers as `GET` would, without the body;
 * - `GET /api/config`; `GET /api/runs` (`?q=&status=&model=` filter it); `POST /api/runs`;
 * - `GET /api/runs/:id/events` (server-sent events), `GET /api/runs/:id/trace.jsonl`;
 * - `POST /api/runs/:id/approvals/:requestId`, `POST /api/runs/:id/stop`;
 * - `POST /api/runs/:id/fork`, `POST /api/runs/:id/save-test`, `DELETE /api/runs/:id`.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ModelPrice, PriceTable } from '../models/pricing.js';
import { defaultModelSpec, describeModelSetup } from '../models/spec.js';
import type { Model } from '../models/types.js';
import { resolveModelSpec } from '../node/resolve-model.js';
import type { SearchDocuments } from '../tools/search-tool.js';
import type { Tool } from '../tools/types.js';
import { runsFolder } from '../trace/runs.js';
import { errorMessage } from '../util/own.js';
import {
  DEFAULT_MAX_RUNS,
  getBrowserDocuments,
  getConfig,
  getEvents,
  getRuns,
  getTraceFile,
  type PlaygroundContext,
  postApproval,
  postRun,
  postStop,
} from './api.js';
import { deleteRun, postFork, postSaveTest } from './api-manage.js';
import {
  assetFile,
  BROWSER_MODEL_PATH,
  browserModelSource,
  IMPORT_MAP,
  IMPORT_MAP_HASH,
  isAssetPath,
} from './browser-assets.js';
import {
  type BoundAddress,
  CONTENT_SECURITY_POLICY,
  isLoopbackHost,
  newAccessToken,
  requestProblem,
  tokenProblem,
} from './guard.js';
import { HttpError, send, sendError, sendFile } from './http.js';
import { createModelCheck } from './model-check.js';
import { PAGE_CSS, PAGE_HTML, PAGE_SCRIPT } from './page.js';

/** Options for {@link startPlayground}. */
export interface PlaygroundOptions {
  /** Port to listen on; `0` picks a free one. @default 7777 */
  port?: number;
  /**
   * Host to bind. Anything but a loopback address lets other machines run tools here, so it must be given
   * on purpose, and a warning is printed.
   * @default '127.0.0.1'
   */
  host?: string;
  /** Model specs offered on the page (e.g. `openai:gpt-4o-mini`), before the default one from the environment. */
  models?: readonly string[];
  /** Tools offered on the page; each run gets the ones ticked. @default [calculator] */
  tools?: readonly Tool[];
  /**
   * Builds the model for a run from one of the offered specs. A call that fails with a retryable error is
   * retried by the model itself (the AI SDK's retries), and each retry shows on the page as it happens
   * (a `model-retry` event).
   * @default resolveModelSpec
   */
  createModel?: (spec: string) => Promise<Model>;
  /** Where each run's JSONL trace is written and past runs are read from. @default runsFolder(): `.taoloop/runs/` or the cache */
  runsDir?: string;
  /**
   * Runs in progress at once (each holds a model call or a tool). One more is refused with HTTP 429 and
   * `{ error: "N runs are already running; wait for one to finish or raise --max-runs" }`, which the page
   * shows. A whole number, 1 or more.
   * @default 4
   */
  maxRuns?: number;
  /** Prices for the cost counter, merged over the built-in table. */
  prices?: PriceTable;
  /**
   * The price of every model the page offers, in USD per million input / output tokens (`taoloop serve
   * --price IN/OUT`), over `prices` and the built-in table.
   * @default none: the cost is known only for models in the price tables
   */
  price?: ModelPrice;
  /** Environment for the default model spec and API keys. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Where warnings go (the non-loopback one). @default a line on stderr */
  warn?: (message: string) => void;
  /**
   * The secret every `/api/` call must carry (`Authorization: Bearer <token>`, or `?token=` on the event
   * stream and downloads); the page reads it from its own URL. A non-loopback `host` always gets one: a
   * random token is made when none is given. At least 16 characters.
   * @default a random token on a non-loopback host; none on loopback
   */
  token?: string;
  /**
   * A GGUF model the page runs itself (`taoloop serve --browser-model`): a local `.gguf` file (served to
   * the page, behind the token) or an `http(s)://` URL the page fetches (it must allow the page's origin).
   * The model list gets `<file name> · runs in this page`; choosing it runs the loop in the page with
   * `taoloop/browser`'s `browserModel` (llama.cpp in WebAssembly through @wllama/wllama, which must be
   * installed, and the package built), with the offered tools that run in a page: the calculator, and the
   * search tool over `browserDocuments`. Such runs are not written to the runs folder.
   * @default none: every model runs on the server
   */
  browserModel?: string;
  /** The documents the in-page search tool searches (sent to the page as strings). @default none: no in-page search */
  browserDocuments?: SearchDocuments;
  /**
   * Where the page's "Save as test" writes a run's trace, as a fixture `taoloop test <folder>` replays
   * (`taoloop serve --tests-dir`). Relative to the working directory.
   * @default 'taoloop-tests'
   */
  testsDir?: string;
  /**
   * Flags `taoloop test` needs to replay the offered tools (the folders `taoloop serve` was given, e.g.
   * `['--docs', 'docs/']`), shown with the command after a save.
   * @default none
   */
  testFlags?: readonly string[];
  /**
   * Whether a model on a server of its own (OpenAI-compatible, Ollama) is checked to answer before each
   * run starts (`GET <base URL>/models`, 3 s); one that does not is refused with its reason, which the page
   * shows beside Run.
   * @default true, unless `createModel` is given (then the specs need not name the servers used)
   */
  checkModels?: boolean;
}

/** A running playground. */
export interface Playground {
  /** The page's address, e.g. `http://127.0.0.1:7777/`, ending in `?token=<token>` when there is one. */
  url: string;
  /** The access token API calls must carry, when there is one (see {@link PlaygroundOptions.token}). */
  token?: string;
  /** Stops every run, closes open event streams and the server. */
  close(): Promise<void>;
  /**
   * For a process about to exit at once (a second Ctrl-C while {@link close} waits for the runs): ends the
   * trace of every run still in progress with a `run-error` line saying `reason`, synchronously, before
   * the caller exits.
   */
  quitting(reason: string): void;
}

/**
 * Starts the playground server and resolves once it listens.
 *
 * @throws {TypeError} for a `maxRuns` that is not a whole number 1 or more, or a bad `token`.
 * @throws {Error} when the port is taken or the host cannot be bound (the `listen` error, e.g.
 * `EADDRINUSE`).
 * @example
 * ```ts
 * const playground = await startPlayground({ port: 0, models: ['openai:gpt-4o-mini'] });
 * console.log(`open ${playground.url}`);
 * ```
 */
export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  const host = options.host ?? '127.0.0.1';
  const env = options.env ?? process.env;
  if (!isLoopbackHost(host)) {
    const warn = options.warn ?? ((m: string) => process.stderr.write(`taoloop: warning: ${m}\n`));
    warn(
      `the playground listens on ${host}: anyone who can reach this address can run the model and its tools on this machine.`,
    );
  }
  const token = accessToken(options.token, host);
  const ctx = await createContext(options, env);
  const bound: BoundAddress = { host, port: options.port ?? 7777 };
  const server = createServer((request, response) => {
    handle(ctx, bound, token, request, response).catch((error: unknown) => fail(response, error));
  });
  await listen(server, bound.port, host);
  bound.port = (server.address() as AddressInfo).port;
  const page = `http://${displayHost(host)}:${bound.port}/`;
  return {
    url: token === undefined ? page : `${page}?token=${encodeURIComponent(token)}`,
    ...(token !== undefined && { token }),
    close: () => closeServer(server, ctx),
    quitting: (reason) => {
      for (const session of ctx.sessions.values()) session.quitting(reason);
    },
  };
}

/**
 * The token API calls need: the one given, else a new one when other machines can reach the server.
 *
 * @throws {TypeError} for a given token that is not a string of at least 16 characters.
 */
function accessToken(given: unknown, host: string): string | undefined {
  if (given === undefined) return isLoopbackHost(host) ? undefined : newAccessToken();
  if (typeof given !== 'string' || given.length < 16 || /\s/.test(given))
    throw new TypeError('the playground token must be a string of at least 16 characters without spaces.');
  return given;
}

async function createContext(options: PlaygroundOptions, env: NodeJS.ProcessEnv): Promise<PlaygroundContext> {
  const fallback = defaultModelSpec(env);
  const models = [...new Set([...(options.models ?? []), ...(fallback ? [fallback] : [])])];
  const tools = options.tools ?? [(await import('../tools/calculator.js')).calculator];
  return {
    models,
    modelHelp: describeModelSetup(),
    tools,
    createModel: options.createModel ?? ((spec) => resolveModelSpec(spec, env)),
    runsDir: options.runsDir ?? runsFolder(process.cwd(), env),
    ...(options.prices && { prices: options.prices }),
    ...(options.price && { price: options.price }),
    sessions: new Map(),
    maxRuns: maxRunsOf(options.maxRuns),
    starting: 0,
    ...(options.browserModel !== undefined && { browserModel: browserModelSource(options.browserModel) }),
    ...(options.browserDocuments && { browserDocuments: options.browserDocuments }),
    cwd: process.cwd(),
    testsDir: path.resolve(options.testsDir ?? 'taoloop-tests'),
    testFlags: [...(options.testFlags ?? [])],
    checkModel:
      (options.checkModels ?? options.createModel === undefined)
        ? createModelCheck(env)
        : async () => undefined,
  };
}

/**
 * The limit on runs in progress at once.
 *
 * @throws {TypeError} for anything but a whole number 1 or more.
 */
function maxRunsOf(given: unknown): number {
  if (given === undefined) return DEFAULT_MAX_RUNS;
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1)
    throw new TypeError(`maxRuns must be a whole number 1 or more (got ${String(given)}).`);
  return given;
}

/** Checks the request, then dispatches it to the page or an API handler. */
async function handle(
  ctx: PlaygroundContext,
  bound: BoundAddress,
  token: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  // A refused request's body is read and dropped: answering before it is read can reset the connection
  // while the client is still sending, and the client would see ECONNRESET instead of the refusal.
  const problem = requestProblem(request, bound);
  if (problem) return refuse(request, response, 403, `refused: ${problem}.`);
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://playground.invalid');
  const path = url.pathname;
  // The static routes (the page, its assets, the in-page model's file) answer `HEAD` as they answer `GET`,
  // without the body (Node's response leaves it out): wllama asks for a cached model's size with `HEAD`.
  const read = method === 'GET' || method === 'HEAD';
  // The page itself holds no data and no secret: it is served without the token; everything else needs it.
  const missingToken =
    token === undefined || (read && (PAGE_PATHS.has(path) || isAssetPath(path)))
      ? undefined
      : tokenProblem(request, token);
  if (missingToken) return refuse(request, response, 401, `refused: ${missingToken}.`);
  if (read) {
    if (path === '/') return sendPage(ctx, response);
    if (ctx.browserModel) {
      const asset = assetFile(path);
      if (asset) return sendFile(response, asset.file, asset.type);
      if (path === BROWSER_MODEL_PATH && ctx.browserModel.file)
        return sendFile(response, ctx.browserModel.file, 'application/octet-stream');
    }
    if (path === '/app.js') return send(response, 200, 'text/javascript; charset=utf-8', PAGE_SCRIPT);
    if (path === '/app.css') return send(response, 200, 'text/css; charset=utf-8', PAGE_CSS);
    if (path === '/favicon.ico') return send(response, 204, 'image/x-icon', '');
  }
  if (method === 'GET') {
    if (path === '/api/config') return getConfig(ctx, response);
    if (path === '/api/runs') return getRuns(ctx, url, response);
    if (path === '/api/browser-documents') return getBrowserDocuments(ctx, response);
  }
  if (method === 'POST' && path === '/api/runs') return postRun(ctx, request, response);
  const run =
    /^\/api\/runs\/([^/]+)(?:\/(events|trace\.jsonl|stop|fork|save-test|approvals\/([^/]+)))?$/.exec(path);
  const id = run?.[1] && decodeURIComponent(run[1]);
  if (run && id) {
    const [, , action, requestId] = run;
    if (method === 'DELETE' && action === undefined) return deleteRun(ctx, id, response);
    if (method === 'GET' && action === 'events') return getEvents(ctx, id, request, response);
    if (method === 'GET' && action === 'trace.jsonl') return getTraceFile(ctx, id, response);
    if (method === 'POST' && action === 'stop') return postStop(ctx, id, response);
    if (method === 'POST' && action === 'fork') return postFork(ctx, id, request, response);
    if (method === 'POST' && action === 'save-test') return postSaveTest(ctx, id, response);
    if (method === 'POST' && requestId)
      return postApproval(ctx, id, decodeURIComponent(requestId), request, response);
  }
  throw new HttpError(404, `no such endpoint: ${method} ${path}`);
}

/**
 * `GET /`: the page. With an in-page model, the page also carries the import map for `taoloop/browser`
 * (allowed by its hash), and may compile WebAssembly and start workers from `blob:` URLs (wllama's).
 */
function sendPage(ctx: PlaygroundContext, response: ServerResponse): void {
  if (!ctx.browserModel) {
    send(response, 200, 'text/html; charset=utf-8', PAGE_HTML);
    return;
  }
  const connect = ctx.browserModel.connectOrigin ? ` ${ctx.browserModel.connectOrigin}` : '';
  const policy = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'",
    `script-src 'self' 'wasm-unsafe-eval' ${IMPORT_MAP_HASH}; worker-src 'self' blob:`,
  ).replace("connect-src 'self'", `connect-src 'self'${connect}`);
  const html = PAGE_HTML.replace(
    '<script type="module"',
    `<script type="importmap">${IMPORT_MAP}</script>\n<script type="module"`,
  );
  send(response, 200, 'text/html; charset=utf-8', html, { 'content-security-policy': policy });
}

/** Answers `status` with `message` once the request's body (unread, dropped) has arrived. */
function refuse(request: IncomingMessage, response: ServerResponse, status: number, message: string): void {
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    sendError(response, status, message);
  };
  if (request.readableEnded) {
    answer();
    return;
  }
  request.once('end', answer);
  request.once('error', answer);
  request.resume();
}

/** The page's own files, served without the access token (they hold no data). */
const PAGE_PATHS = new Set(['/', '/app.js', '/app.css', '/favicon.ico']);

/** Answers an error: an {@link HttpError} with its status, anything else as 500. */
function fail(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (error instanceof HttpError) sendError(response, error.status, error.message);
  else if (error instanceof URIError) sendError(response, 400, 'malformed URL');
  else sendError(response, 500, `internal error: ${errorMessage(error)}`);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function closeServer(server: Server, ctx: PlaygroundContext): Promise<void> {
  const sessions = [...ctx.sessions.values()];
  for (const session of sessions) session.stop();
  await Promise.all(sessions.map((s) => s.done));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
