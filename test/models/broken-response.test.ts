/**
 * A 200 response whose body breaks off (the server sends the headers and half the body, Content-Length or
 * chunked, then closes the connection) is retried like a dropped connection, streamed or not, in the
 * library, the CLI and the playground; what was already streamed is not streamed twice; and when the
 * retries run out the error says the server closed the connection mid-response.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { startPlayground } from '../../src/web/server.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const ANSWER = 'Thought: The total is known.\nAnswer: $1,680 per year';

/** The body of a chat-completions answer with `text`: SSE events, or one JSON object. */
function body(text: string, stream: boolean): string {
  if (!stream)
    return JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
  const event = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const pieces = text.match(/[\s\S]{1,6}/g) ?? [];
  return `${event({ role: 'assistant', content: '' }, null)}${pieces.map((p) => event({ content: p }, null)).join('')}${event({}, 'stop')}data: [DONE]\n\n`;
}

/**
 * A server whose first `broken` responses are cut after half their body (the socket destroyed once that
 * half was written), framed by Content-Length or chunked; later ones are whole. `texts(i)` is the reply of
 * request `i`. `retry-after-ms: 0` keeps retries instant.
 */
async function brokenServer(options: {
  broken: number;
  framing: 'content-length' | 'chunked';
  texts?: (request: number) => string;
}) {
  let requests = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    // The playground asks for the model list before a run (its model check): answered whole, not counted.
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"object":"list","data":[{"id":"m","object":"model"}]}');
      return;
    }
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const index = requests++;
      const stream = JSON.parse(raw).stream === true;
      const payload = body(options.texts?.(index) ?? ANSWER, stream);
      const headers: Record<string, string | number> = {
        'content-type': stream ? 'text/event-stream' : 'application/json',
        'retry-after-ms': '0',
      };
      if (options.framing === 'content-length') headers['content-length'] = Buffer.byteLength(payload);
      response.writeHead(200, headers);
      if (index >= options.broken) {
        response.end(payload);
        return;
      }
      response.write(payload.slice(0, Math.floor(payload.length / 2)), () => response.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    spec: `openai-compatible:http://127.0.0.1:${port}/v1#m`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function eventsOf(run: AsyncGenerator<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

for (const framing of ['content-length', 'chunked'] as const) {
  for (const streaming of [true, false]) {
    test(`a ${framing} 200 body cut midway is retried and the run answers (${streaming ? 'streamed' : 'not streamed'})`, async () => {
      const server = await brokenServer({ broken: 1, framing });
      try {
        const model = await resolveModelSpec(server.spec, {}, { maxRetries: 2 });
        const events = await eventsOf(
          streamAgent({ model, question: 'Cost?', tools: [calculator], modelSettings: { streaming } }),
        );
        const end = events.at(-1);
        assert.equal(end?.type === 'run-end' && end.result.status, 'answered', JSON.stringify(end));
        assert.equal(end?.type === 'run-end' && end.result.answer, '$1,680 per year');
        assert.equal(server.requests(), 2);
        const retries = events.flatMap((e) => (e.type === 'model-retry' ? [e] : []));
        assert.equal(retries.length, 1);
        assert.match(
          retries[0]!.error,
          /^the server closed the connection mid-response \(\d+ bytes received\)$/,
        );
        assert.equal(retries[0]!.maxRetries, 2);
        // What was streamed before the cut is not streamed again.
        const deltas = events.flatMap((e) => (e.type === 'model-delta' ? [e.text] : [])).join('');
        if (streaming) assert.equal(deltas, ANSWER);
      } finally {
        await server.close();
      }
    });
  }
}

test('when the retries run out, the error says the server closed the connection mid-response', async () => {
  const server = await brokenServer({ broken: 10, framing: 'chunked' });
  try {
    for (const streaming of [true, false]) {
      const before = server.requests();
      const model = await resolveModelSpec(server.spec, {}, { maxRetries: 1 });
      const result = await runAgent({ model, question: 'Cost?', tools: [], modelSettings: { streaming } });
      assert.equal(result.status, 'error');
      assert.match(
        result.error ?? '',
        /failed: the server closed the connection mid-response \(\d+ bytes received\) \(after 2 attempts\)$/,
      );
      assert.doesNotMatch(result.error ?? '', /stalled|timed out|broke off/);
      assert.equal(server.requests() - before, 2, 'one attempt and one retry (maxRetries: 1)');
    }
  } finally {
    await server.close();
  }
});

test('a retry whose reply differs from the text already streamed fails the call, saying so', async () => {
  const server = await brokenServer({
    broken: 1,
    framing: 'chunked',
    texts: (i) => (i === 0 ? ANSWER : 'Thought: Something else entirely.\nAnswer: no'),
  });
  try {
    const model = await resolveModelSpec(server.spec, {}, { maxRetries: 2 });
    const result = await runAgent({ model, question: 'Cost?', tools: [] });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /the retry's reply differs from what was already received/);
  } finally {
    await server.close();
  }
});

test('the CLI run and the playground recover from a cut 200 body as the library does', async () => {
  const server = await brokenServer({ broken: 1, framing: 'content-length' });
  try {
    const cli = await runCli(['run', 'Cost?', '--tools', 'calculator', '--model', server.spec], {
      env: cleanEnv({ TAOLOOP_CACHE_DIR: tempDir('taoloop-cache-') }),
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /Answer: \$1,680 per year/);
    assert.match(cli.stdout + cli.stderr, /the server closed the connection mid-response/);
  } finally {
    await server.close();
  }
  const again = await brokenServer({ broken: 1, framing: 'content-length' });
  try {
    const playground = await startPlayground({
      port: 0,
      env: {},
      models: [again.spec],
      runsDir: tempDir('taoloop-web-'),
    });
    try {
      const origin = new URL(playground.url).origin;
      const started = await fetch(`${origin}/api/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ question: 'Cost?', model: again.spec }),
      });
      const { id } = (await started.json()) as { id: string };
      const events = await (await fetch(`${origin}/api/runs/${id}/events`)).text();
      assert.match(events, /"type":"model-retry"[^\n]*the server closed the connection mid-response/);
      assert.match(events, /"status":"answered"/);
    } finally {
      await playground.close();
    }
  } finally {
    await again.close();
  }
});
