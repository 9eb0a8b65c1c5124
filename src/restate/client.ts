/**
 * Talking to a Restate server over HTTP: register a worker, start runs, collect results, answer approvals.
 * Plain `fetch`, no client library.
 *
 * Sources: Restate docs, "Invoking over HTTP" (`/<service>/<key>/<handler>`, `/send`, workflows run once
 * per ID, `/restate/workflow/<name>/<id>/attach`): https://docs.restate.dev/invoke/http; Admin API,
 * "Register deployment" (`POST /deployments {uri, force}`): https://docs.restate.dev/adminapi/create-deployment.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { RunResult } from '../agent/types.js';
import {
  type ApprovalAnswer,
  DEFAULT_AGENT_SERVICE_NAME,
  type PendingApproval,
  type RunRequest,
} from './service.js';

/** A Restate server answered with an error, or could not be reached. */
export class RestateClientError extends Error {
  override name = 'RestateClientError';
  /**
   * Makes the error.
   * @param message what failed: the request and the server's answer or the connection error.
   */
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Options shared by the ingress helpers. */
export interface IngressOptions {
  /** The workflow name the worker serves. @default 'taoloopAgent' */
  service?: string;
  /** Stops waiting (the run itself goes on in Restate). */
  signal?: AbortSignal;
}

/** Options for {@link submitRun}. */
export interface SubmitOptions extends IngressOptions {
  /**
   * The run ID (the workflow ID). The same key never starts a second run: a repeated submit waits for
   * (or returns) the first run's result, for as long as Restate keeps it (`workflowRetention`, 1 day by
   * default). @default a random UUID
   */
  idempotencyKey?: string;
}

/**
 * Registers (or, with `force`, re-registers) a worker with Restate's admin API, which then discovers its
 * services. @returns the deployment ID.
 * @throws {RestateClientError} when the admin API refuses (unreachable worker, changed services without `force`).
 */
export async function registerDeployment(
  adminUrl: string,
  workerUrl: string,
  options: { force?: boolean } = {},
): Promise<string> {
  const body = await request(`${trimSlash(adminUrl)}/deployments`, {
    method: 'POST',
    body: { uri: workerUrl, force: options.force ?? true },
  });
  return isRecord(body) && typeof body.id === 'string' ? body.id : '';
}

/**
 * Starts a run without waiting for it (Restate's `/send`). Starting the same `runId` again is harmless.
 * @returns the run ID, for {@link runResult}, {@link pendingApproval} and {@link answerApproval}.
 */
export async function startDurableRun(
  ingressUrl: string,
  run: RunRequest,
  options: SubmitOptions = {},
): Promise<string> {
  const runId = options.idempotencyKey ?? randomUUID();
  await request(handlerUrl(ingressUrl, options, runId, 'run/send'), {
    method: 'POST',
    body: run,
    ...(options.signal && { signal: options.signal }),
  });
  return runId;
}

/**
 * Waits for a run's result (attaching to the workflow), however long it takes: a wait cut short by an
 * HTTP timeout is simply resumed.
 * @throws {RestateClientError} when the run failed terminally (e.g. a configuration mistake in `buildRun`).
 */
export async function runResult(
  ingressUrl: string,
  runId: string,
  options: IngressOptions = {},
): Promise<RunResult> {
  const service = encodeURIComponent(options.service ?? DEFAULT_AGENT_SERVICE_NAME);
  const url = `${trimSlash(ingressUrl)}/restate/workflow/${service}/${encodeURIComponent(runId)}/attach`;
  for (let attempt = 0; ; attempt++) {
    try {
      return (await request(url, {
        method: 'GET',
        ...(options.signal && { signal: options.signal }),
      })) as RunResult;
    } catch (error) {
      if (!(error instanceof RestateClientError) || error.status !== undefined || options.signal?.aborted) {
        throw error;
      }
      // The connection dropped (a long wait, a restarting server): attach again.
      await sleep(Math.min(200 * 2 ** attempt, 5000), options.signal);
    }
  }
}

/**
 * Runs `run` on Restate and returns its result: {@link startDurableRun} then {@link runResult}.
 *
 * @example
 * ```ts
 * const result = await submitRun('http://127.0.0.1:8080', { question: 'What is 6 * 7?' }, { idempotencyKey: 'q-1' });
 * ```
 */
export async function submitRun(
  ingressUrl: string,
  run: RunRequest,
  options: SubmitOptions = {},
): Promise<RunResult> {
  const runId = await startDurableRun(ingressUrl, run, options);
  return runResult(ingressUrl, runId, options);
}

/** The approval a run waits for, or `null`. */
export async function pendingApproval(
  ingressUrl: string,
  runId: string,
  options: IngressOptions = {},
): Promise<PendingApproval | null> {
  const body = await request(handlerUrl(ingressUrl, options, runId, 'pending'), {
    method: 'POST',
    ...(options.signal && { signal: options.signal }),
  });
  return (body ?? null) as PendingApproval | null;
}

/**
 * Answers the approval a run waits for. The answer names the request it answers: `step`, `tool` and
 * `input` as {@link pendingApproval} returned them, so `{ ...pending, decision }` is an answer.
 *
 * @example
 * ```ts
 * const pending = await pendingApproval(ingressUrl, runId);
 * if (pending) await answerApproval(ingressUrl, runId, { ...pending, decision: { type: 'approve' } });
 * ```
 * @throws {RestateClientError} with status 409 when the run waits for no approval (an answer sent
 *   before the run asked, after it timed out, or twice) or for another one; 400 for a malformed answer.
 */
export async function answerApproval(
  ingressUrl: string,
  runId: string,
  answer: ApprovalAnswer,
  options: IngressOptions = {},
): Promise<void> {
  await request(handlerUrl(ingressUrl, options, runId, 'approve'), {
    method: 'POST',
    body: answer,
    ...(options.signal && { signal: options.signal }),
  });
}

/** An item of an evaluation, as far as a run needs it. */
export interface RunItem {
  id: string;
  question: string;
}

/** Options for {@link runOnRestate}. */
export interface RunOnRestateOptions extends IngressOptions {
  /**
   * Prefix of every run ID (`<prefix>:<item id>`). Pass a stable one to make an evaluation resumable: a
   * re-run collects finished items instead of running them again. @default a random UUID per call
   */
  runIdPrefix?: string;
  /** The request for an item. @default `{ question: item.question, metadata: { itemId: item.id } }` */
  toRequest?: (item: RunItem) => RunRequest;
}

/**
 * A per-item runner for the evaluation harness: each item becomes one workflow run, spread by Restate over
 * every registered worker.
 *
 * @example
 * ```ts
 * const run = runOnRestate('http://127.0.0.1:8080', { runIdPrefix: 'hotpotqa-2024-06-01' });
 * const results = await Promise.all(items.map(run));
 * ```
 */
export function runOnRestate(
  ingressUrl: string,
  options: RunOnRestateOptions = {},
): (item: RunItem) => Promise<RunResult> {
  const prefix = options.runIdPrefix ?? randomUUID();
  const toRequest =
    options.toRequest ?? ((item: RunItem) => ({ question: item.question, metadata: { itemId: item.id } }));
  return (item) =>
    submitRun(ingressUrl, toRequest(item), { ...options, idempotencyKey: `${prefix}:${item.id}` });
}

function handlerUrl(ingressUrl: string, options: IngressOptions, runId: string, handler: string): string {
  const service = encodeURIComponent(options.service ?? DEFAULT_AGENT_SERVICE_NAME);
  return `${trimSlash(ingressUrl)}/${service}/${encodeURIComponent(runId)}/${handler}`;
}

/** One JSON request; the parsed body (`undefined` when empty). */
async function request(
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      ...(init.signal && { signal: init.signal }),
    });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new RestateClientError(`could not reach ${url}${cause}`);
  }
  const text = await response.text();
  const body = text === '' ? undefined : safeJson(text);
  if (!response.ok) {
    const message = isRecord(body) && typeof body.message === 'string' ? body.message : text;
    throw new RestateClientError(`${init.method} ${url}: ${response.status} ${message}`, response.status);
  }
  return body;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
