import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Model } from '../../src/models/types.js';
import { type ScriptedTurn, scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import type { Tool } from '../../src/tools/types.js';
import type { RunMessage } from '../../src/web/run-session.js';
import { type Playground, type PlaygroundOptions, startPlayground } from '../../src/web/server.js';

/** A playground on 127.0.0.1:<free port> whose only model replays `turns`, with the test tools. */
export interface TestPlayground extends Playground {
  origin: string;
  runsDir: string;
  /** Inputs the write tool was run with. */
  notes: string[];
}

/** Tools for the tests: calculator, a write tool that records its input, and a read tool echoing raw text. */
export function testTools(notes: string[]): Tool[] {
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Saves a note. Input: the note text.',
    input: 'text',
    effects: 'write',
    run: (text) => {
      notes.push(text);
      return `saved note: ${text}`;
    },
  });
  const fetchPage = defineTool({
    name: 'fetch_page',
    description: 'Returns the raw HTML of a page. Input: the page name.',
    input: 'text',
    run: () => '<script>alert(1)</script><img src=x onerror="window.__xss = 1; alert(2)"> <b>bold?</b>',
  });
  return [calculator, writeNote, fetchPage];
}

/** Starts a playground whose model `scripted` replays `turns` (a fresh copy for every run). */
export async function startTestPlayground(
  turns: readonly ScriptedTurn[],
  options: Partial<PlaygroundOptions> = {},
): Promise<TestPlayground> {
  const notes: string[] = [];
  const runsDir = options.runsDir ?? (await mkdtemp(path.join(os.tmpdir(), 'taoloop-web-')));
  const playground = await startPlayground({
    port: 0,
    env: {},
    models: ['scripted'],
    tools: testTools(notes),
    createModel: async () => scriptedModel(turns, { usage: { inputTokens: 120, outputTokens: 30 } }),
    runsDir,
    ...options,
  });
  const close = async () => {
    await playground.close();
    if (!options.runsDir) await rm(runsDir, { recursive: true, force: true });
  };
  return { ...playground, close, origin: new URL(playground.url).origin, runsDir, notes };
}

/**
 * A model that replays `turns`, streaming each in chunks of `chunkChars` characters with `delayMs` before
 * each chunk (as a real server writes), so a page can be watched while a turn is being written. Reports
 * 120 input and 30 output tokens per call, like the test playground's default model.
 */
export function pacedModel(
  turns: readonly ScriptedTurn[],
  { chunkChars = 6, delayMs = 60 }: { chunkChars?: number; delayMs?: number } = {},
): Model {
  const inner = scriptedModel(turns, {
    streamChunkChars: chunkChars,
    usage: { inputTokens: 120, outputTokens: 30 },
  });
  const stream = inner.stream?.bind(inner);
  if (!stream) throw new Error('the scripted model streams when given streamChunkChars');
  return {
    id: 'paced',
    generate: (request) => inner.generate(request),
    async *stream(request) {
      for await (const part of stream(request)) {
        if (part.type === 'text-delta') await sleep(delayMs, undefined, { signal: request.signal });
        yield part;
      }
    },
  };
}

/** A raw HTTP request (node:http, so Host and Origin can be set to anything). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POSTs JSON with the page's own Origin, as the page does. */
export async function postJson(playground: TestPlayground, pathname: string, body: unknown) {
  const response = await fetch(`${playground.origin}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: playground.origin },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Follows a run's event stream, calling `onMessage` for each message, and resolves with all of them once
 * `stream-end` arrives.
 */
export async function followRun(
  playground: TestPlayground,
  id: string,
  onMessage: (message: RunMessage) => void | Promise<void> = () => {},
  /** A query string for the request, e.g. `?token=...`. @default '' */
  search = '',
): Promise<RunMessage[]> {
  const response = await fetch(`${playground.origin}/api/runs/${id}/events${search}`);
  if (!response.ok || !response.body) throw new Error(`events: ${response.status} ${await response.text()}`);
  const messages: RunMessage[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const message = JSON.parse(data.slice('data: '.length)) as RunMessage;
      messages.push(message);
      await onMessage(message);
      if (message.type === 'stream-end') return messages;
    }
  }
  throw new Error('the event stream closed before stream-end');
}

/** Debian's Chromium, driven by playwright-core (never `playwright install`). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or `false` when they can. With TAOLOOP_REQUIRE_BROWSER=1 (CI) a
 * missing browser is an error instead of a skip.
 */
export async function browserProblem(): Promise<string | false> {
  let problem: string | false = false;
  if (!existsSync(CHROMIUM)) problem = `${CHROMIUM} is missing (apt-get install chromium)`;
  else {
    try {
      await import('playwright-core');
    } catch {
      problem = 'playwright-core is not installed (npm ci)';
    }
  }
  if (problem && process.env.TAOLOOP_REQUIRE_BROWSER) throw new Error(`TAOLOOP_REQUIRE_BROWSER: ${problem}`);
  return problem;
}

/**
 * Launches headless Chromium with the flags from shared/notes/dependencies.md and a fresh profile
 * (`--user-data-dir`); `close` ends the browser and removes the profile.
 */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(path.join(os.tmpdir(), 'taoloop-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  const close = async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  };
  return { context, close };
}
