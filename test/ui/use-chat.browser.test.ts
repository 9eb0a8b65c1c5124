/**
 * The real client: a React page using `@ai-sdk/react`'s `useChat`, bundled with esbuild, in headless
 * Chromium, talking to `createAgentUIStreamResponse` on a local server whose model is a local
 * OpenAI-compatible test server. Nothing here touches the network beyond 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import { type AgentUIStreamResponseOptions, createAgentUIStreamResponse } from '../../src/ui/ui-response.js';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { gatedModel, sendEmailTool } from '../helpers/ui-chat.js';
import { browserProblem, launchChromium } from '../web/helpers.js';

const skip = await browserProblem();

/** The chat page, bundled for the browser (React, `@ai-sdk/react` and its `ai` copy included). */
async function bundlePage(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./fixtures/chat-page.js', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A Node request as a fetch `Request` whose signal fires when the client goes away. */
async function toRequest(req: IncomingMessage, res: ServerResponse, origin: string): Promise<Request> {
  let body = '';
  for await (const chunk of req) body += chunk;
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? 'GET';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers: req.headers as Record<string, string>,
    ...(method !== 'GET' && method !== 'HEAD' && { body }),
    signal: controller.signal,
  });
}

/** Writes a fetch `Response` to a Node response, streaming its body. */
async function sendResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/**
 * The app: `/` is the page, `/api/chat` the route handler (the calculator, and `extra` options), also for
 * `useChat`'s resume requests (`/api/chat/<id>/stream`). `close`
 * also drops open connections: Chromium opens a spare (preconnect) socket that never carries a request,
 * and `server.close()` alone waits for it until the server's headers timeout ends it (60 s, checked every
 * 30 s), which made each test here take over a minute.
 */
async function startApp(
  fake: FakeOpenAI,
  extra: Partial<AgentUIStreamResponseOptions> = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  const script = await bundlePage();
  const model = await resolveModelSpec(`openai-compatible:${fake.baseURL}#fake`, {});
  const server = createServer((req, res) => {
    void (async () => {
      // The chat route; a GET of `/api/chat/<id>/stream` is `useChat`'s resume request (`streams`).
      if ((req.method === 'POST' && req.url === '/api/chat') || req.url?.startsWith('/api/chat/')) {
        const request = await toRequest(req, res, 'http://127.0.0.1');
        await sendResponse(
          await createAgentUIStreamResponse({ model, tools: [calculator], ...extra, request }),
          res,
        );
      } else if (req.url === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      } else {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><title>chat</title><div id="root"></div><script type="module" src="/app.js"></script>',
          );
      }
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close };
}

describe('useChat in headless Chromium against createAgentUIStreamResponse', { skip }, () => {
  let context: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    ({ context, close: closeBrowser } = await launchChromium());
  });
  after(() => closeBrowser?.());

  /**
   * The app on a fake model server that sends `replies`, opened in a fresh page; all three are closed when
   * `t` ends. `problems` collects the page's uncaught errors.
   */
  async function openApp(
    t: TestContext,
    replies: string[],
    extra: Partial<AgentUIStreamResponseOptions> = {},
  ) {
    const fake = await startFakeOpenAI({ replies });
    const app = await startApp(fake, extra);
    const page = await context.newPage();
    t.after(async () => {
      await page.close();
      await app.close();
      await fake.close();
    });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(app.url);
    return { fake, page, problems };
  }

  test('shows the tool call, its output and the answer; a follow-up carries the first turn', async (t) => {
    const { fake, page, problems } = await openApp(t, [
      'Thought: I need 20 times 12.\nAction: calculator[20 * 12]',
      'Thought: That is the yearly price.\nAnswer: 240 USD',
      'Thought: Seven seats at 240 each.\nAction: calculator[240 * 7]',
      'Thought: Done.\nAnswer: 1680 USD',
    ]);

    await page.getByLabel('Message').fill('Price of Pro per seat per year at 20 USD a month?');
    await page.getByRole('button', { name: 'Send' }).click();
    const first = page.locator('li.message.assistant').nth(0);
    await first.locator('p.text').waitFor();
    assert.equal(await first.locator('p.text').textContent(), '240 USD');
    assert.equal(await first.locator('.tool code').textContent(), 'calculator[20 * 12]');
    assert.equal(await first.locator('.tool').getAttribute('data-state'), 'output-available');
    assert.equal(await first.locator('.tool output').textContent(), '240');
    assert.deepEqual(await first.locator('p.reasoning').allTextContents(), [
      'I need 20 times 12.',
      'That is the yearly price.',
    ]);
    assert.match((await first.locator('pre.data-stop').textContent()) ?? '', /"status":"answered"/);
    await page.locator('#status', { hasText: 'ready' }).waitFor();

    await page.getByLabel('Message').fill('And for 7 seats?');
    await page.getByRole('button', { name: 'Send' }).click();
    const second = page.locator('li.message.assistant').nth(1);
    await second.locator('p.text').waitFor();
    assert.equal(await second.locator('p.text').textContent(), '1680 USD');
    assert.equal(await second.locator('.tool output').textContent(), '1680');

    // The follow-up's first model request: the first turn as conversation, then the new question.
    assert.equal(fake.requests.length, 4);
    const sent = fake.requests[2]!.messages.slice(1).map((m) => [m.role, m.content]);
    assert.deepEqual(sent, [
      ['user', 'Question: Price of Pro per seat per year at 20 USD a month?'],
      ['assistant', 'Answer: 240 USD'],
      ['user', 'Question: And for 7 seats?'],
    ]);
    assert.deepEqual(problems, []);
  });

  test('a tool call needing approval pauses the run; Approve in the page resumes it into the same message', async (t) => {
    const { tool: sendEmail, sent } = sendEmailTool();
    const { fake, page, problems } = await openApp(
      t,
      [
        'Thought: I will email Ann.\nAction: send_email[ann@example.com]',
        'Thought: Sent.\nAnswer: Ann has it.',
      ],
      {
        tools: [sendEmail],
        durable: { pauseForApproval: true, secret: 'the secret of this test, 32 chars or more' },
      },
    );

    await page.getByLabel('Message').fill('Email Ann.');
    await page.getByRole('button', { name: 'Send' }).click();
    const message = page.locator('li.message.assistant').nth(0);
    await message.getByRole('button', { name: 'Approve' }).waitFor();
    assert.equal(await message.locator('.tool').getAttribute('data-state'), 'approval-requested');
    assert.match((await message.locator('pre.data-stop').textContent()) ?? '', /"status":"paused"/);
    assert.deepEqual(sent, []);
    assert.equal(fake.requests.length, 1);

    await message.getByRole('button', { name: 'Approve' }).click();
    await message.locator('p.text').waitFor();
    assert.equal(await message.locator('p.text').textContent(), 'Ann has it.');
    assert.equal(await message.locator('.tool').getAttribute('data-state'), 'output-available');
    assert.equal(await message.locator('.tool output').textContent(), 'sent to ann@example.com');
    assert.equal(await page.locator('li.message.assistant').count(), 1, 'the answer joined the same message');
    assert.deepEqual(sent, ['ann@example.com'], 'the tool ran once, after the approval');
    assert.equal(fake.requests.length, 2, 'the resume made one new model call, none again');
    assert.deepEqual(problems, []);
  });

  test('a streamed turn shows as it arrives: the thought before the turn ends, then the answer', async (t) => {
    const { model, open, openAll } = gatedModel([
      { before: 'Thought: I need 20 times 12.\n', after: 'Action: calculator[20 * 12]' },
      { before: 'Thought: That is the yearly price.\nAnswer: 240 USD', after: '' },
    ]);
    t.after(openAll);
    const { page, problems } = await openApp(t, [], { model });

    await page.getByLabel('Message').fill('Price of Pro per seat per year at 20 USD a month?');
    await page.getByRole('button', { name: 'Send' }).click();
    const message = page.locator('li.message.assistant').nth(0);
    // The first model call is still open (its gate is closed): the thought is on screen already.
    await message.locator('p.reasoning', { hasText: 'I need 20 times 12.' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('#status').textContent(), 'streaming');
    assert.equal(await message.locator('.tool').count(), 0, 'no action yet: the model has not written it');

    open(0);
    // The second call's answer shows before its turn ends too.
    await message.locator('p.text', { hasText: '240 USD' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('#status').textContent(), 'streaming');
    assert.equal(await message.locator('.tool output').textContent(), '240');
    assert.equal(await message.locator('pre.data-stop').count(), 0, 'the run has not ended');

    open(1);
    await page.locator('#status', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    // Once complete, the message is what a model that does not stream gives.
    assert.deepEqual(await message.locator('p.reasoning').allTextContents(), [
      'I need 20 times 12.',
      'That is the yearly price.',
    ]);
    assert.deepEqual(await message.locator('p.text').allTextContents(), ['240 USD']);
    assert.equal(await message.locator('.tool code').textContent(), 'calculator[20 * 12]');
    assert.match((await message.locator('pre.data-stop').textContent()) ?? '', /"status":"answered"/);
    assert.deepEqual(problems, []);
  });

  test('resumable streams: a reload mid-run gets the run back (useChat resume: true)', async (t) => {
    const { model, open, openAll, requests } = gatedModel([
      { before: 'Thought: I need 20 times 12.\n', after: 'Action: calculator[20 * 12]' },
      { before: 'Thought: That is the yearly price.\nAnswer: 240 USD', after: '' },
    ]);
    t.after(openAll);
    const streams = new Map();
    const { page, problems } = await openApp(t, [], { model, streams });
    await page.goto(`${page.url()}?resume=chat-reload`);

    await page.getByLabel('Message').fill('Price of Pro per seat per year at 20 USD a month?');
    await page.getByRole('button', { name: 'Send' }).click();
    const message = page.locator('li.message.assistant').nth(0);
    await message.locator('p.reasoning', { hasText: 'I need 20 times 12.' }).waitFor({ timeout: 60_000 });

    // A reload mid-run: the page asks for the chat's stream and shows the run from its start.
    await page.reload();
    await message.locator('p.reasoning', { hasText: 'I need 20 times 12.' }).waitFor({ timeout: 60_000 });
    assert.equal(requests[0]?.signal?.aborted, false, 'the reload did not abort the model call');
    open(0);
    open(1);
    await message.locator('p.text', { hasText: '240 USD' }).waitFor({ timeout: 60_000 });
    await page.locator('#status', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    assert.equal(await message.locator('.tool output').textContent(), '240');
    assert.match((await message.locator('pre.data-stop').textContent()) ?? '', /"status":"answered"/);
    assert.equal(requests.length, 2, 'one run: the reload started none');
    assert.equal(streams.size, 0);
    assert.deepEqual(problems, []);
  });
});
