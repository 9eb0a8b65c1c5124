/**
 * The browser model (`taoloop/browser`'s `browserModel`, llama.cpp in WebAssembly through @wllama/wllama) in
 * headless Chromium, on the tiny random-weight GGUF the test suite writes (scripts/make-tiny-gguf.ts): the
 * turn follows the grammar, stops at the stop sequence, streams, reuses the prompt prefix, and a whole ReAct
 * run works in the page. Then the example page (examples/browser/) served by a plain static file server
 * runs its ReAct loop (calculator and search over the Brightgrid documents) to a status shown in the page.
 * The tiny model's text is noise: these tests check structure, never content.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { ensureTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { startStaticServer } from '../helpers/static-server.js';
import { browserProblem, launchChromium } from '../web/helpers.js';
import { assertBuilt, ROOT } from './helpers.js';

const skip = await browserProblem();
const PAGE_SCRIPT = fileURLToPath(new URL('./fixtures/browser-model-page.mjs', import.meta.url));
const WASM = path.join(ROOT, 'node_modules', '@wllama', 'wllama', 'esm', 'wasm', 'wllama.wasm');
const TURN =
  /^Thought: [^\n]{1,40}\n(Action: (search|calculator|finish)\[[^\]\n]{1,20}\]|Answer: [^\n]{1,40}\n?)$/;

/** The page script with the built `taoloop/browser` and @wllama/wllama, bundled for the browser. */
async function bundlePageScript(): Promise<string> {
  assertBuilt();
  const result = await esbuild.build({
    entryPoints: [PAGE_SCRIPT],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** Page errors (the test asserts there are none), and the console, shown when a check fails. */
function collectErrors(page: Page): string[] & { console: string[] } {
  const errors = Object.assign([] as string[], { console: [] as string[] });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => errors.console.push(`${message.type()}: ${message.text()}`));
  return errors;
}

/** Rejects after `ms` with what the page logged, so that a stuck page fails with a reason. */
function withinMs<T>(ms: number, work: Promise<T>, log: string[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no result within ${ms} ms; page console:\n${log.join('\n')}`)),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface Turn {
  text: string;
  finishReason: string;
  usage: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number };
}
interface Checks {
  contextWindowTokens: number;
  grammarTurn: Turn;
  stopped: Turn;
  parts: { type: string; text?: string; finishReason?: string }[];
  next: Turn;
  run: {
    status: string;
    error?: string;
    steps: { text: string; turnType: string; finishReason: string; usage: Turn['usage'] }[];
  };
}

describe('the browser model (wllama) in headless Chromium, on the tiny GGUF', { skip }, () => {
  let dir: string;
  let site: Awaited<ReturnType<typeof startStaticServer>>;
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'taoloop-browser-model-'));
    const gguf = await readFile(ensureTinyGguf(path.join(dir, 'tiny.gguf')));
    const script = await bundlePageScript();
    site = await startStaticServer(ROOT, {
      extra: {
        '/test/page.html': {
          body: '<!doctype html><meta charset="utf-8"><title>browser model</title><script type="module" src="/test/page.js"></script>',
          type: 'text/html; charset=utf-8',
        },
        '/test/page.js': { body: script, type: 'text/javascript; charset=utf-8' },
        '/test/tiny.gguf': { body: gguf, type: 'application/octet-stream' },
        '/test/stalled.gguf': 'stall',
        '/test/truncated.wasm': {
          body: (await readFile(WASM)).subarray(0, 64 * 1024),
          type: 'application/wasm',
        },
      },
    });
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(async () => {
    await closeBrowser?.();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const urls = () => ({
    modelUrl: `${site.origin}/test/tiny.gguf`,
    wasmUrl: `${site.origin}/node_modules/@wllama/wllama/esm/wasm/wllama.wasm`,
  });

  /**
   * Calls the page script's export `name` with `args` (the tiny model's URLs unless given) in a new page,
   * and checks that the page had no uncaught error unless `allowPageErrors`.
   */
  async function inPage<T>(
    name: 'checks' | 'load',
    args: { modelUrl?: string; wasmUrl?: string; loadTimeoutMs?: number } = {},
    { limitMs = 180_000, allowPageErrors = false } = {},
  ): Promise<T> {
    const page = await context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(`${site.origin}/test/page.html`);
      const result = await withinMs(
        limitMs,
        page.evaluate(
          async ({ name, args }) => {
            const module = await import('/test/page.js' as string);
            return JSON.stringify(await module[name](args));
          },
          { name, args: { ...urls(), ...args } },
        ),
        errors.console,
      );
      if (!allowPageErrors) assert.deepEqual([...errors], [], errors.console.join('\n'));
      return JSON.parse(result) as T;
    } finally {
      await page.close();
    }
  }

  /** How a load ended (the page script's `load`). */
  interface LoadOutcome {
    loaded?: true;
    name?: string;
    message?: string;
    ms: number;
  }

  test('a wrong wasm URL fails the load at once, naming the URL and what to serve there', async () => {
    const wasmUrl = `${site.origin}/no/such/wllama.wasm`;
    const outcome = await inPage<LoadOutcome>('load', { wasmUrl }, { limitMs: 60_000 });
    assert.equal(outcome.name, 'ModelConfigError', JSON.stringify(outcome));
    assert.ok(outcome.message?.includes(wasmUrl), outcome.message);
    assert.match(outcome.message ?? '', /HTTP 404/);
    assert.match(outcome.message ?? '', /@wllama\/wllama\/esm\/wasm\/wllama\.wasm/);
    assert.match(outcome.message ?? '', /wasmUrl/);
  });

  test('a wasmUrl that serves a page instead fails the load at once, saying it is not WebAssembly', async () => {
    const wasmUrl = `${site.origin}/test/page.html`;
    const outcome = await inPage<LoadOutcome>('load', { wasmUrl }, { limitMs: 60_000 });
    assert.equal(outcome.name, 'ModelConfigError', JSON.stringify(outcome));
    assert.ok(outcome.message?.includes(wasmUrl), outcome.message);
    assert.match(outcome.message ?? '', /is not a WebAssembly file \(it starts with "<!do"/);
  });

  test('a wasm file that wllama cannot start fails after loadTimeoutMs instead of hanging', async () => {
    // The real file cut short: it passes the first-bytes check, then fails to compile in wllama's worker.
    // wllama 3.8.1 never settles the load then (its abort handler throws on the CompileError, an uncaught
    // error in the page, hence allowPageErrors).
    const outcome = await inPage<LoadOutcome>(
      'load',
      { wasmUrl: `${site.origin}/test/truncated.wasm`, loadTimeoutMs: 3000 },
      { limitMs: 60_000, allowPageErrors: true },
    );
    assert.equal(outcome.name, 'ModelConfigError', JSON.stringify(outcome));
    assert.match(
      outcome.message ?? '',
      /no progress for 3000 ms while starting llama\.cpp on the model from /,
    );
    assert.match(outcome.message ?? '', /loadTimeoutMs/);
    // Not before its limit; that it ends at all (not a hang) is the page's `limitMs`, no clock bound.
    assert.ok(outcome.ms >= 3000, `took ${outcome.ms} ms`);
  });

  test('a model URL that answers 404 fails the load, naming the URL and the status', async () => {
    const modelUrl = `${site.origin}/test/missing.gguf`;
    const outcome = await inPage<LoadOutcome>('load', { modelUrl }, { limitMs: 60_000 });
    assert.equal(outcome.name, 'ModelConfigError', JSON.stringify(outcome));
    assert.ok(outcome.message?.includes(modelUrl), outcome.message);
    assert.match(outcome.message ?? '', /HTTP 404/);
    assert.match(outcome.message ?? '', /Check the URL/);
  });

  test('a model URL that never answers fails after loadTimeoutMs, saying so', async () => {
    const modelUrl = `${site.origin}/test/stalled.gguf`;
    const outcome = await inPage<LoadOutcome>('load', { modelUrl, loadTimeoutMs: 2000 }, { limitMs: 60_000 });
    assert.equal(outcome.name, 'ModelConfigError', JSON.stringify(outcome));
    assert.ok(outcome.message?.includes(modelUrl), outcome.message);
    assert.match(outcome.message ?? '', /no progress for 2000 ms while downloading the model/);
    assert.match(outcome.message ?? '', /loadTimeoutMs/);
    assert.ok(outcome.ms >= 2000, `took ${outcome.ms} ms`);
  });

  test('turns follow the grammar, stop at the stop sequence, stream, and reuse the prefix; a run works', async () => {
    assert.ok((await readFile(WASM)).length > 100_000, 'wllama.wasm ships with @wllama/wllama');
    const checks = await inPage<Checks>('checks');
    assert.equal(checks.contextWindowTokens, 4096);

    // The grammar: Thought, then one Action naming a real tool (or finish) or an Answer, and nothing more.
    assert.match(checks.grammarTurn.text, TURN);
    assert.equal(checks.grammarTurn.finishReason, 'stop');
    assert.ok(checks.grammarTurn.usage.inputTokens! > 10, JSON.stringify(checks.grammarTurn.usage));
    assert.ok(checks.grammarTurn.usage.outputTokens! > 5, JSON.stringify(checks.grammarTurn.usage));

    // The stop sequence: the grammar makes the model write "\nAction:" (or "\nAnswer:") after the thought;
    // generation ends there, and the sequence is not in the text.
    assert.match(checks.stopped.text, /^Thought: [^\n]{1,40}$/);
    assert.equal(checks.stopped.finishReason, 'stop');

    // Streaming: text deltas that add up to a turn, then one finish part.
    const deltas = checks.parts.filter((part) => part.type === 'text-delta');
    assert.ok(deltas.length > 3, JSON.stringify(checks.parts));
    assert.match(deltas.map((part) => part.text).join(''), TURN);
    assert.deepEqual(
      checks.parts.slice(-1).map((part) => [part.type, part.finishReason]),
      [['finish', 'stop']],
    );
    assert.equal(checks.parts.filter((part) => part.type === 'finish').length, 1);

    // Prefix reuse: the follow-up call reads the shared prefix from the KV cache.
    assert.match(checks.next.text, TURN);
    assert.ok(
      checks.next.usage.cachedInputTokens! >= checks.grammarTurn.usage.inputTokens! - 2,
      JSON.stringify(checks.next.usage),
    );
    assert.ok(checks.next.usage.inputTokens! > checks.next.usage.cachedInputTokens!);

    // A whole ReAct run in the page: every turn is a well-formed action on a real tool (the tiny model
    // is steered away from answering, so the run goes to its step limit).
    assert.equal(checks.run.status, 'max_steps', checks.run.error);
    assert.equal(checks.run.steps.length, 3);
    for (const step of checks.run.steps) {
      assert.match(step.text, /^Thought: [^\n]{1,40}\nAction: (search|calculator)\[[^\]\n]{1,20}\]$/);
      assert.equal(step.turnType, 'action');
      assert.equal(step.finishReason, 'stop');
    }
    for (const step of checks.run.steps.slice(1))
      assert.ok(step.usage.cachedInputTokens! > 0, JSON.stringify(step.usage));
  });

  test('the example page (examples/browser) runs its ReAct loop on a static server and shows the status', async () => {
    const page = await context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(`${site.origin}/examples/browser/?model=/test/tiny.gguf&maxSteps=3`);
      const status = page.locator('#status[data-status]');
      await withinMs(180_000, status.waitFor({ timeout: 180_000 }), errors.console);
      // The tiny model writes noise under the turn grammar's default limits (1000-character thoughts), so its
      // turns run past the output cap: the run ends on format errors (deterministic at temperature 0).
      assert.equal(
        await status.getAttribute('data-status'),
        'format_errors',
        (await status.textContent()) ?? '',
      );
      assert.match((await status.textContent()) ?? '', /^Run ended: format_errors/);
      const steps = await page.locator('#steps li').allTextContents();
      assert.ok(steps.length >= 1 && steps.length <= 3, steps.join('\n'));
      // Each step is a model turn written in the page and the loop's observation of it.
      for (const step of steps) assert.match(step, /^Thought: [\s\S]+\nObservation: /);
      assert.deepEqual([...errors], [], errors.console.join('\n'));
    } finally {
      await page.close();
    }
  });
});
