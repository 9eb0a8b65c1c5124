import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { readTrace } from '../../src/trace/trace.js';
import { hostProblem, isLoopbackHost } from '../../src/web/guard.js';
import type { RunMessage } from '../../src/web/run-session.js';
import { type PlaygroundOptions, startPlayground } from '../../src/web/server.js';
import { type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import {
  followRun,
  pacedModel,
  postJson,
  rawRequest,
  startTestPlayground,
  type TestPlayground,
} from './helpers.js';

const TURNS = [
  'Thought: I need the yearly price.\nAction: calculator[20 * 12 * 7]',
  'Thought: I will save the total.\nAction: write_note[total: 1680]',
  'Thought: The note is saved.\nAnswer: $1,680 per year',
];

describe('who may talk to the playground', () => {
  let playground: TestPlayground;
  before(async () => {
    playground = await startTestPlayground(TURNS);
  });
  after(() => playground.close());

  test('a request from a foreign Origin is refused with 403', async () => {
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:1', 'https://127.0.0.1']) {
      const get = await rawRequest(`${playground.origin}/api/config`, { headers: { origin } });
      assert.equal(get.status, 403, origin);
      assert.match(JSON.parse(get.body).error, /origin/);
      const post = await rawRequest(`${playground.origin}/api/runs`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'q', model: 'scripted' }),
      });
      assert.equal(post.status, 403, origin);
    }
    const runs = await rawRequest(`${playground.origin}/api/runs`);
    assert.deepEqual(JSON.parse(runs.body).runs, [], 'nothing was started');
  });

  test('a POST without an Origin, and a cross-site fetch, are refused', async () => {
    const noOrigin = await rawRequest(`${playground.origin}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'q', model: 'scripted' }),
    });
    assert.equal(noOrigin.status, 403);
    const crossSite = await rawRequest(`${playground.origin}/api/config`, {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
    });
    assert.equal(crossSite.status, 403);
    const linkedPage = await rawRequest(`${playground.origin}/`, {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    assert.equal(linkedPage.status, 200, 'a link to the playground from elsewhere still opens the page');
  });

  test('a bad Host (DNS rebinding) is refused with 403', async () => {
    const port = new URL(playground.url).port;
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `127.0.0.1:${Number(port) + 1}`,
    ]) {
      const response = await rawRequest(`${playground.origin}/api/config`, { headers: { host } });
      assert.equal(response.status, 403, host);
      assert.match(JSON.parse(response.body).error, /Host/);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const response = await rawRequest(`${playground.origin}/api/config`, { headers: { host } });
      assert.equal(response.status, 200, host);
    }
  });

  test('the page is served with a Content-Security-Policy and no inline script', async () => {
    const page = await rawRequest(`${playground.origin}/`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'.*script-src 'self'/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.doesNotMatch(page.body, /<script>|<script [^>]*>[^<]/, 'scripts only by src');
    const script = await rawRequest(`${playground.origin}/app.js`);
    assert.match(String(script.headers['content-type']), /text\/javascript/);
    assert.doesNotMatch(script.body, /innerHTML|insertAdjacentHTML|outerHTML|document\.write/);
  });

  test('guard helpers: loopback names and Host checks', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      assert.ok(isLoopbackHost(host), host);
    for (const host of ['0.0.0.0', '10.0.0.1', 'example.com', '::']) assert.ok(!isLoopbackHost(host), host);
    assert.match(String(hostProblem(undefined, { host: '127.0.0.1', port: 80 })), /no Host/);
    const wide = { host: '0.0.0.0', port: 80 };
    assert.equal(hostProblem('192.168.1.5:80', wide), undefined, 'an IP literal needs no DNS');
    assert.match(String(hostProblem('attacker.example:80', wide)), /does not name/);
    assert.equal(hostProblem('box.lan:80', { host: 'box.lan', port: 80 }), undefined);
    assert.match(String(hostProblem('192.168.1.5:80', { host: '127.0.0.1', port: 80 })), /does not name/);
  });
});

describe('runs through the API', () => {
  let playground: TestPlayground;
  before(async () => {
    playground = await startTestPlayground(TURNS);
  });
  after(() => playground.close());

  test('a run streams its events, waits for approval, and runs the edited input', async () => {
    const started = await postJson(playground, '/api/runs', {
      question: 'How much per year for 7 developers?',
      model: 'scripted',
      tools: ['calculator', 'write_note'],
      maxSteps: 5,
    });
    assert.equal(started.status, 201);
    const id = String(started.body.id);
    const messages = await followRun(playground, id, async (message) => {
      if (message.type !== 'approval-pending') return;
      assert.equal(message.tool, 'write_note');
      const answer = await postJson(playground, `/api/runs/${id}/approvals/${message.requestId}`, {
        type: 'edit',
        input: 'yearly total: 1680',
      });
      assert.equal(answer.status, 200);
    });
    const types = messages.map((m) => m.type);
    assert.deepEqual(types.slice(0, 4), ['run-options', 'run-start', 'model-start', 'model-request']);
    assert.deepEqual(messages[0], {
      type: 'run-options',
      question: 'How much per year for 7 developers?',
      model: 'scripted',
      modelLabel: 'scripted',
      tools: ['calculator', 'write_note'],
      maxSteps: 5,
      thread: [],
    });
    // What each model call was sent: the system prompt, the messages, the stop sequences.
    const requests = messages.filter((m) => m.type === 'model-request');
    assert.equal(requests.length, 3);
    const second = requests[1];
    assert.ok(second?.type === 'model-request');
    assert.equal(second.step, 2);
    assert.equal(second.messages[0]?.role, 'system');
    assert.match(second.messages[0]?.content ?? '', /calculator/);
    assert.ok(second.messages.some((m) => m.content.includes('Observation: 1680')));
    assert.ok(second.stopSequences?.some((stop) => stop.includes('Observation')));
    assert.ok(types.indexOf('approval-start') < types.indexOf('approval-pending'));
    assert.ok(types.indexOf('approval-pending') < types.indexOf('approval-end'));
    const end = messages.find((m): m is Extract<RunMessage, { type: 'run-end' }> => m.type === 'run-end');
    assert.equal(end?.result.status, 'answered');
    assert.equal(end?.result.answer, '$1,680 per year');
    assert.deepEqual(playground.notes, ['yearly total: 1680']);

    const trace = await rawRequest(`${playground.origin}/api/runs/${id}/trace.jsonl`);
    assert.equal(trace.status, 200);
    assert.match(String(trace.headers['content-disposition']), /attachment; filename="taoloop-.*\.jsonl"/);
    assert.equal(JSON.parse(trace.body.split('\n')[0] ?? '').format, 'taoloop-trace');
    const written = readTrace(`${playground.runsDir}/${id}.jsonl`);
    assert.equal(written.result?.status, 'answered');
    assert.equal(written.steps.length, 3);

    const runs = JSON.parse((await rawRequest(`${playground.origin}/api/runs`)).body).runs;
    assert.equal(runs[0].id, id);
    assert.equal(runs[0].status, 'answered');
    assert.equal(runs[0].file, undefined, 'no file paths leave the server');
  });

  test('a past run is replayed from its trace file by another server', async () => {
    const { id } = (
      await postJson(playground, '/api/runs', {
        question: 'twice?',
        model: 'scripted',
        tools: ['calculator'],
      })
    ).body as { id: string };
    await followRun(playground, id);
    const other = await startPlayground({ port: 0, env: {}, runsDir: playground.runsDir });
    try {
      const replay = await followRun({ ...playground, origin: other.url.replace(/\/$/, '') }, id);
      const types = replay.map((m) => m.type);
      assert.deepEqual(types.slice(0, 2), ['run-options', 'run-start']);
      assert.deepEqual(replay[0], {
        type: 'run-options',
        question: 'twice?',
        model: 'scripted',
        modelLabel: 'scripted',
        tools: ['calculator'],
        maxSteps: 8,
        thread: [],
      });
      assert.ok(types.includes('model-request'), 'the requests are kept in the trace for the inspector');
      assert.deepEqual(types.slice(-2), ['run-end', 'stream-end']);
    } finally {
      await other.close();
    }
  });

  test('stop aborts a run that waits for approval', async () => {
    const { id } = (await postJson(playground, '/api/runs', { question: 'stop me', model: 'scripted' }))
      .body as {
      id: string;
    };
    const messages = await followRun(playground, id, async (message) => {
      if (message.type === 'approval-pending')
        assert.equal((await postJson(playground, `/api/runs/${id}/stop`, {})).status, 202);
    });
    const end = messages.find((m): m is Extract<RunMessage, { type: 'run-end' }> => m.type === 'run-end');
    assert.equal(end?.result.status, 'aborted');
    const decision = messages.find((m) => m.type === 'approval-end');
    assert.deepEqual(decision?.type === 'approval-end' && decision.decision, {
      type: 'reject',
      reason: 'the run was stopped',
    });
    const late = await postJson(playground, `/api/runs/${id}/approvals/1`, { type: 'approve' });
    assert.equal(late.status, 409, 'an approval that no longer waits');
  });

  test('quitting ends the trace of a run in progress with a run-error line, and nothing follows it', async () => {
    const { id } = (await postJson(playground, '/api/runs', { question: 'quit now', model: 'scripted' }))
      .body as { id: string };
    const file = path.join(playground.runsDir, `${id}.jsonl`);
    const lastLine = () => {
      const { type, error } = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '{}');
      return { type, error };
    };
    await followRun(playground, id, async (message) => {
      if (message.type !== 'approval-pending') return;
      playground.quitting('interrupted twice (SIGTERM): quit at once');
      // Written before quitting returns: a process that exits right after keeps it.
      assert.deepEqual(lastLine(), { type: 'run-error', error: 'interrupted twice (SIGTERM): quit at once' });
      await postJson(playground, `/api/runs/${id}/stop`, {});
    });
    assert.deepEqual(lastLine(), { type: 'run-error', error: 'interrupted twice (SIGTERM): quit at once' });
    playground.quitting('again');
    assert.equal(
      lastLine().error,
      'interrupted twice (SIGTERM): quit at once',
      'an ended trace is left alone',
    );
  });

  test('bad requests are refused before anything runs', async () => {
    const cases: [unknown, RegExp][] = [
      [{ question: ' ', model: 'scripted' }, /question/],
      [{ question: 'q', model: 'openai-compatible:http://169.254.169.254/v1#x' }, /configured models/],
      [{ question: 'q', model: 'scripted', maxSteps: 21 }, /maxSteps/],
      [{ question: 'q', model: 'scripted', maxSteps: 0 }, /maxSteps/],
      [{ question: 'q', model: 'scripted', tools: ['rm_rf'] }, /unknown tools: rm_rf/],
      [{ question: 'q', model: 'scripted', tools: [] }, /tick at least one tool.*offered: calculator/],
      [{ question: 'q', model: 'scripted', continueFrom: 'no-such-run' }, /no run "no-such-run"/],
    ];
    for (const [body, error] of cases) {
      const response = await postJson(playground, '/api/runs', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(String(response.body.error), error);
    }
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '.hidden', 'no-such-run']) {
      const response = await rawRequest(`${playground.origin}/api/runs/${id}/trace.jsonl`);
      assert.equal(response.status, 404, id);
    }
  });
});

describe('live tokens', () => {
  test('deltas reach the page as written, and stop where the model invents an observation', async (t) => {
    const turn =
      'Thought: I need the yearly price.\nAction: calculator[20 * 12 * 7]\nObservation: 9999\nmore';
    const playground = await startTestPlayground([], {
      createModel: async () =>
        pacedModel([turn, 'Thought: done.\nAnswer: $1,680 per year'], { chunkChars: 8, delayMs: 5 }),
    });
    t.after(() => playground.close());
    const { id } = (await postJson(playground, '/api/runs', { question: 'q', model: 'scripted' })).body as {
      id: string;
    };
    const messages = await followRun(playground, id);
    const deltas = messages.filter((m) => m.type === 'model-delta' && m.step === 1);
    assert.ok(deltas.length >= 5, `${deltas.length} deltas`);
    const written = deltas.map((m) => (m.type === 'model-delta' ? m.text : '')).join('');
    assert.equal(written.trimEnd(), 'Thought: I need the yearly price.\nAction: calculator[20 * 12 * 7]');
    const types = messages.map((m) => m.type);
    assert.ok(types.lastIndexOf('model-delta') < types.lastIndexOf('model-end'));
    // A finished turn's deltas are not kept in the trace: model-end has the whole text.
    assert.ok(!readTrace(`${playground.runsDir}/${id}.jsonl`).events.some((e) => e.type === 'model-delta'));
  });

  test('what was written before a stop stays in the trace and in its replay', async (t) => {
    const turn = `Thought: ${'a long thought '.repeat(20)}\nAction: calculator[1 + 1]`;
    const playground = await startTestPlayground([], {
      createModel: async () => pacedModel([turn], { chunkChars: 5, delayMs: 40 }),
    });
    t.after(() => playground.close());
    const { id } = (await postJson(playground, '/api/runs', { question: 'q', model: 'scripted' })).body as {
      id: string;
    };
    let seen = 0;
    const live = await followRun(playground, id, async (message) => {
      if (message.type !== 'model-delta') return;
      seen += 1;
      if (seen === 8) assert.equal((await postJson(playground, `/api/runs/${id}/stop`, {})).status, 202);
    });
    const end = live.find((m) => m.type === 'run-end');
    assert.equal(end?.type === 'run-end' && end.result.status, 'aborted');
    const trace = readTrace(`${playground.runsDir}/${id}.jsonl`);
    const kept = trace.events.filter((e) => e.type === 'model-delta');
    assert.equal(kept.length, 1, 'the deltas of the unfinished call, as one line');
    const keptText = kept[0]?.type === 'model-delta' ? kept[0].text : '';
    assert.ok(keptText.startsWith('Thought: a long thought'), keptText);
    assert.ok(keptText.length >= 40 && keptText.length < turn.length, `${keptText.length} characters`);
    assert.deepEqual(
      trace.events.map((e) => e.type).slice(-2),
      ['model-delta', 'run-end'],
      'written before the run ends',
    );
    // A viewer opening the run later (another server) gets the same unfinished text.
    const other = await startPlayground({ port: 0, env: {}, runsDir: playground.runsDir });
    t.after(() => other.close());
    const replay = await followRun({ ...playground, origin: other.url.replace(/\/$/, '') }, id);
    const replayed = replay.filter((m) => m.type === 'model-delta');
    assert.equal(replayed.length, 1);
    assert.equal(replayed[0]?.type === 'model-delta' && replayed[0].text, keptText);
  });
});

describe('retries and prices', () => {
  /** A playground whose model is an OpenAI-compatible server here, answering as `fake` says. */
  async function playgroundOver(fake: FakeOpenAIOptions, options: Partial<PlaygroundOptions> = {}) {
    const server = await startFakeOpenAI(fake);
    const playground = await startTestPlayground([], {
      createModel: () => resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {}),
      ...options,
    });
    return {
      playground,
      server,
      close: async () => {
        await playground.close();
        await server.close();
      },
    };
  }

  test('a retryable failure is retried by the model, each retry shown as it happens; price gives the cost', async (t) => {
    const { playground, close } = await playgroundOver(
      {
        replies: ['Thought: easy.\nAnswer: 4'],
        failFirst: { count: 2, status: 503, message: 'busy', headers: { 'retry-after-ms': '10' } },
        usage: { promptTokens: 120, completionTokens: 30 },
      },
      { price: { inputUsdPerMTok: 1, outputUsdPerMTok: 2 } },
    );
    t.after(close);
    const { id } = (await postJson(playground, '/api/runs', { question: 'q', model: 'scripted' })).body as {
      id: string;
    };
    const messages = await followRun(playground, id);
    const retries = messages.filter((m) => m.type === 'model-retry');
    assert.deepEqual(
      retries.map((m) => m.type === 'model-retry' && [m.step, m.retry, m.maxRetries]),
      [
        [1, 1, 2],
        [1, 2, 2],
      ],
    );
    for (const retry of retries) {
      assert.match(retry.type === 'model-retry' ? retry.error : '', /503/);
      assert.ok(retry.type === 'model-retry' && Number.isFinite(retry.delayMs), 'the wait is reported');
    }
    // The same events are in the run's trace, in their place: each between the requests it separates.
    const lines = readTrace(`${playground.runsDir}/${id}.jsonl`).events;
    const written = lines.filter((e) => e.type === 'model-retry').map(({ atMs: _, ...e }) => e);
    assert.deepEqual(written, retries);
    const order = lines.map((e) => e.type).filter((type) => /^model-(start|retry|end)$/.test(type));
    assert.deepEqual(order, ['model-start', 'model-retry', 'model-retry', 'model-end']);
    const end = messages.find((m) => m.type === 'run-end');
    assert.equal(end?.type === 'run-end' && end.result.status, 'answered');
    // 120 input tokens at $1 and 30 output tokens at $2 per million.
    assert.equal(end?.type === 'run-end' && end.result.costUsd, 0.00018);
  });

  test('a failure that is not worth retrying, or one retry too many, ends the run', async (t) => {
    const refused = await playgroundOver({ replies: ['unused'], failFirst: { count: 1, status: 400 } });
    t.after(refused.close);
    const { id } = (await postJson(refused.playground, '/api/runs', { question: 'q', model: 'scripted' }))
      .body as { id: string };
    const messages = await followRun(refused.playground, id);
    assert.ok(!messages.some((m) => m.type === 'model-retry'));
    const end = messages.find((m) => m.type === 'run-end');
    assert.equal(end?.type === 'run-end' && end.result.status, 'error');
    const busy = await playgroundOver({ replies: ['unused'], failFirst: { count: 3, status: 503 } });
    t.after(busy.close);
    const second = (await postJson(busy.playground, '/api/runs', { question: 'q', model: 'scripted' }))
      .body as {
      id: string;
    };
    const more = await followRun(busy.playground, second.id);
    assert.equal(more.filter((m) => m.type === 'model-retry').length, 2, 'the AI SDK retries twice');
    const last = more.find((m) => m.type === 'run-end');
    assert.equal(last?.type === 'run-end' && last.result.status, 'error');
  });
});

describe('conversations', () => {
  test('a follow-up continues the conversation of an answered run', async (t) => {
    const seen: string[][] = [];
    const turns = ['Thought: easy.\nAnswer: Lisbon', 'Thought: I remember.\nAnswer: about 545,000'];
    let call = 0;
    const playground = await startTestPlayground([], {
      createModel: async () => {
        const model = pacedModel([turns[call++] ?? ''], { delayMs: 0 });
        const stream = model.stream?.bind(model);
        return {
          ...model,
          stream(request) {
            seen.push(request.messages.map((m) => m.content));
            return stream!(request);
          },
        };
      },
    });
    t.after(() => playground.close());
    const first = (
      await postJson(playground, '/api/runs', {
        question: 'Capital of Portugal?',
        model: 'scripted',
        tools: ['calculator'],
      })
    ).body as { id: string };
    await followRun(playground, first.id);
    const second = await postJson(playground, '/api/runs', {
      question: 'How many people live there?',
      model: 'scripted',
      tools: ['calculator'],
      continueFrom: first.id,
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const messages = await followRun(playground, String(second.body.id));
    assert.deepEqual(messages[0], {
      type: 'run-options',
      question: 'How many people live there?',
      model: 'scripted',
      modelLabel: 'scripted',
      tools: ['calculator'],
      maxSteps: 8,
      continueFrom: first.id,
      thread: [{ question: 'Capital of Portugal?', answer: 'Lisbon' }],
    });
    const sent = (seen[1] ?? []).join('\n');
    assert.match(sent, /Capital of Portugal\?/);
    assert.match(sent, /Lisbon/);
    assert.match(sent, /How many people live there\?/);
    const header = readTrace(`${playground.runsDir}/${second.body.id}.jsonl`).header;
    assert.equal(header.conversationId, first.id, 'one conversation in the runs folder');
  });
});

test('a non-loopback host is allowed only when asked for, with a warning', async () => {
  const warnings: string[] = [];
  const playground = await startPlayground({
    port: 0,
    host: '0.0.0.0',
    env: {},
    warn: (m) => warnings.push(m),
  });
  try {
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /anyone who can reach this address can run/);
  } finally {
    await playground.close();
  }
  const local = await startPlayground({ port: 0, env: {}, warn: (m) => warnings.push(m) });
  assert.match(local.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  await local.close();
  assert.equal(warnings.length, 1, 'no warning for the default loopback host');
});
