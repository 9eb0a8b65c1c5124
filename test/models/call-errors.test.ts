/**
 * Model call failures are named for what happened on the wire (no headers, a stalled stream, a refused
 * or closed connection), never the AI SDK's guess "Cannot connect to API".
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import { describeStall } from '../../src/models/call-progress.js';
import { resolveModelSpec } from '../../src/models/spec.js';

const modelAt = (baseURL: string) =>
  resolveModelSpec(`openai-compatible:${baseURL}#m`, {}, { maxRetries: 0 });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

test('a refused connection says so, with the address, not "Cannot connect to API"', async () => {
  const server = createServer();
  const baseURL = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  for (const streaming of [false, true]) {
    const result = await runAgent({
      model: await modelAt(baseURL),
      question: 'q',
      tools: [],
      modelSettings: { streaming },
    });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /cannot connect: connection refused \(127\.0\.0\.1:\d+\)/);
    assert.doesNotMatch(result.error ?? '', /Cannot connect to API/);
  }
});

test('a server that closes the connection before answering is named as such', async () => {
  const server = createServer((req) => req.socket.destroy());
  const baseURL = await listen(server);
  try {
    for (const streaming of [false, true]) {
      const result = await runAgent({
        model: await modelAt(baseURL),
        question: 'q',
        tools: [],
        modelSettings: { streaming },
      });
      assert.equal(result.status, 'error');
      assert.match(
        result.error ?? '',
        /failed: the server closed the connection before sending response headers$/,
      );
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a server that accepted the request but sends no headers is "no response headers within N s"', async () => {
  const server = createServer(() => {});
  const baseURL = await listen(server);
  try {
    const result = await runAgent({
      model: await modelAt(baseURL),
      question: 'q',
      tools: [],
      limits: { modelTimeoutMs: 400 },
    });
    assert.match(
      result.error ?? '',
      /^The model call failed: no response headers within 0\.\d s \(modelTimeoutMs: 400 ms\)\.$/,
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('describeStall tells silence from a slow answer that still flows', () => {
  const base = { startedAt: 0, attemptAt: 0, bytes: 0 };
  assert.equal(describeStall(undefined, 5000), 'no complete answer in time');
  assert.equal(describeStall({ startedAt: 0, bytes: 0 }, 5000), 'no complete answer within 5.0 s');
  assert.equal(describeStall(base, 120_000), 'no response headers within 120 s');
  assert.equal(
    describeStall({ ...base, headersAt: 100, lastDataAt: 25_000, bytes: 1204 }, 120_000),
    'no complete answer within 120 s: the stream stalled for the last 95 s (1204 bytes received, the last after 25 s)',
  );
  assert.equal(
    describeStall({ ...base, headersAt: 100, bytes: 0 }, 120_000),
    'no complete answer within 120 s: the stream stalled for the last 120 s (headers received, no body)',
  );
  assert.equal(
    describeStall({ ...base, headersAt: 100, lastDataAt: 119_990, bytes: 20_480 }, 120_000),
    'no complete answer within 120 s: still receiving (20480 bytes so far)',
  );
});

test('a port fetch refuses as unsafe (9) is named, and not retried (no retry can succeed)', async () => {
  const model = await resolveModelSpec('openai-compatible:http://127.0.0.1:9/v1#m'); // default retries: 2
  for (const streaming of [false, true]) {
    const events: string[] = [];
    const run = streamAgent({ model, question: 'q', tools: [], modelSettings: { streaming } });
    let next = await run.next();
    while (!next.done) {
      events.push(next.value.type);
      next = await run.next();
    }
    const result = next.value;
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /fetch refuses port 9 as unsafe .*run the server on another port/);
    assert.ok(!events.includes('model-retry'), `no retry: ${events.join(', ')}`);
  }
});

test('a timeout that cuts the wait for a retry names the failed attempt (HTTP 429), not a stalled stream', async () => {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
    res.end(JSON.stringify({ error: { message: 'rate limited' } }));
  });
  const baseURL = await listen(server);
  try {
    for (const streaming of [false, true]) {
      const model = await resolveModelSpec(`openai-compatible:${baseURL}#m`); // default retries: 2
      const result = await runAgent({
        model,
        question: 'q',
        tools: [],
        modelSettings: { streaming },
        limits: { modelTimeoutMs: 600 },
      });
      assert.equal(result.status, 'error');
      assert.match(
        result.error ?? '',
        /^The model call failed: no answer within 0\.\d s: the last attempt failed with HTTP 429 and the next retry was still waiting \(retry-after 30 s\) \(modelTimeoutMs: 600 ms\)\.$/,
      );
      assert.doesNotMatch(result.error ?? '', /stalled|bytes/);
    }
    assert.equal(requests, 2, 'one attempt a call: the retry was still waiting when the timeout cut it');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('describeStall names a failed attempt whose retry had not been sent', () => {
  const base = { startedAt: 0, attemptAt: 0, headersAt: 50, lastDataAt: 60, bytes: 68, maxRetries: 2 };
  assert.equal(
    describeStall({ ...base, failure: { error: 'HTTP 502', at: 50 } }, 4000),
    'no answer within 4.0 s: the last attempt failed with HTTP 502 and the next retry was still waiting',
  );
  assert.equal(
    describeStall(
      { startedAt: 0, attemptAt: 0, bytes: 0, failure: { error: 'the server closed it', at: 5 } },
      4000,
    ),
    'no answer within 4.0 s: the last attempt failed (the server closed it) and the next retry was still waiting',
  );
  // No retry left, or one the SDK does not make: the failure alone.
  assert.equal(
    describeStall({ ...base, retries: 2, failure: { error: 'HTTP 503', at: 50 } }, 4000),
    'no answer within 4.0 s: the last attempt failed with HTTP 503',
  );
  assert.equal(
    describeStall({ ...base, failure: { error: 'HTTP 400', at: 50 } }, 4000),
    'no answer within 4.0 s: the last attempt failed with HTTP 400',
  );
});

test("a timeout message leads with the whole call's time, never an attempt's share of it", () => {
  // The call was cut at 30 s; its last attempt (retry 2) was sent 0.4 s before, and had no headers yet.
  const retried = { startedAt: 0, attemptAt: 29_600, bytes: 0, retries: 2, maxRetries: 2 };
  assert.equal(
    describeStall(retried, 30_000),
    'no response headers within 30 s (retry 2, sent 0.4 s before)',
  );
  const cases = [
    { ...retried, attemptAt: 29_990 },
    // A retry that had started to answer, then went quiet.
    { startedAt: 0, attemptAt: 27_800, headersAt: 27_850, lastDataAt: 27_900, bytes: 5, retries: 1 },
    { startedAt: 0, attemptAt: 29_000, headersAt: 29_100, lastDataAt: 29_950, bytes: 5, retries: 1 },
  ];
  for (const progress of cases) {
    const message = describeStall(progress, 30_000);
    assert.equal(/within (\d+(?:\.\d)?) s/.exec(message)?.[1], '30', message);
  }
});
