/**
 * The playground's endpoints for what learners and app builders do with runs (issue 31, items 6 to 8),
 * over HTTP: past runs searched and filtered, deleted (never a run in progress, never through a symbolic
 * link, never without the page's Origin or token); a run saved as a fixture `taoloop test` accepts; a run
 * forked from one of its steps (earlier steps replayed, no tool run again, an edited observation being what
 * the model sees); instructions and temperature; a model that does not answer refused before the run.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentTool } from '../../src/agent/agent-tool.js';
import { checkTraceFile } from '../../src/eval/trace-files.js';
import type { Model } from '../../src/models/types.js';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { type ScriptedTurn, scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { readTrace } from '../../src/trace/trace.js';
import { rawOutput } from '../../src/web/fork.js';
import type { RunMessage } from '../../src/web/run-session.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { closedPort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp.js';
import {
  followRun,
  postJson,
  rawRequest,
  startTestPlayground,
  type TestPlayground,
  testTools,
} from './helpers.js';

const NOTE_RUN: ScriptedTurn[] = [
  'Thought: I note it first.\nAction: write_note[price is 20]',
  'Thought: Now the total.\nAction: calculator[20 * 12 * 7]',
  'Thought: I know it.\nAnswer: **$1,680** per year',
];

/**
 * A playground whose models play `scripts` in order, one script per run (a fork's model gets the next one
 * too, and is called only for the steps after the fork's), each model kept in `models` to read its requests.
 */
async function scriptedPlayground(scripts: ScriptedTurn[][], options = {}) {
  const models: ReturnType<typeof scriptedModel>[] = [];
  const playground = await startTestPlayground([], {
    createModel: async (): Promise<Model> => {
      const turns = scripts[models.length] ?? [];
      const model = scriptedModel(turns, { usage: { inputTokens: 100, outputTokens: 20 } });
      models.push(model);
      return model;
    },
    ...options,
  });
  return { playground, models };
}

async function run(playground: TestPlayground, body: Record<string, unknown>, approve = true) {
  const started = await postJson(playground, '/api/runs', { model: 'scripted', ...body });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const id = String(started.body.id);
  const messages = await followRun(playground, id, async (message) => {
    if (message.type === 'approval-pending' && approve)
      await postJson(playground, `/api/runs/${id}/approvals/${message.requestId}`, { type: 'approve' });
  });
  return { id, messages };
}

function endOf(messages: RunMessage[]) {
  const end = messages.find((m) => m.type === 'run-end');
  assert.ok(end?.type === 'run-end', 'the run ended');
  return end.result;
}

async function listRuns(playground: TestPlayground, query = '') {
  const response = await rawRequest(`${playground.origin}/api/runs${query}`);
  assert.equal(response.status, 200, response.body);
  return JSON.parse(response.body) as {
    runs: { id: string; status: string; question: string; answer?: string; modelLabel: string }[];
    filters: { statuses: string[]; models: string[] };
  };
}

describe('past runs: search, filters, delete', () => {
  let playground: TestPlayground;
  const ids: Record<string, string> = {};
  before(async () => {
    ({ playground } = await scriptedPlayground([
      ['Thought: easy.\nAnswer: Paris is the capital.'],
      ['Thought: easy.\nAnswer: Berlin, of course.'],
      ['Thought: I try.\nAction: calculator[1 +]', 'Thought: again.\nAction: calculator[1 +]'],
    ]));
    ids.paris = (await run(playground, { question: 'Capital of France?', tools: ['calculator'] })).id;
    ids.berlin = (await run(playground, { question: 'Capital of Germany?', tools: ['calculator'] })).id;
    ids.limit = (await run(playground, { question: 'Add one?', tools: ['calculator'], maxSteps: 2 })).id;
  });
  after(() => playground.close());

  test('a trace changed on disk is listed as it now is (the listing keeps what it read of unchanged ones)', async () => {
    const file = path.join(playground.runsDir, `${ids.paris}.jsonl`);
    const before = readFileSync(file, 'utf8');
    assert.deepEqual((await listRuns(playground, '?q=lyon')).runs, []);
    writeFileSync(file, before.replaceAll('Paris is the capital.', 'Lyon is not the capital.'));
    try {
      assert.deepEqual(
        (await listRuns(playground, '?q=lyon')).runs.map((r) => r.id),
        [ids.paris],
      );
    } finally {
      writeFileSync(file, before);
    }
    assert.deepEqual((await listRuns(playground, '?q=lyon')).runs, []);
  });

  test('search looks in questions and answers, every word; filters by status and by model', async () => {
    const all = await listRuns(playground);
    assert.deepEqual(
      all.runs.map((r) => r.id),
      [ids.limit, ids.berlin, ids.paris],
    );
    assert.deepEqual(all.filters, { statuses: ['answered', 'max_steps'], models: ['scripted'] });
    assert.equal(all.runs[2]?.answer, undefined, 'searched on the server, not sent');
    assert.deepEqual(
      (await listRuns(playground, '?q=paris')).runs.map((r) => r.id),
      [ids.paris],
      'answer text',
    );
    assert.deepEqual(
      (await listRuns(playground, '?q=CAPITAL%20germany')).runs.map((r) => r.id),
      [ids.berlin],
    );
    assert.deepEqual((await listRuns(playground, '?q=capital%20nowhere')).runs, []);
    assert.deepEqual(
      (await listRuns(playground, '?status=max_steps')).runs.map((r) => r.id),
      [ids.limit],
    );
    assert.equal((await listRuns(playground, '?status=answered&model=scripted')).runs.length, 2);
    assert.deepEqual((await listRuns(playground, '?model=other')).runs, []);
    // The filters still offer what there is.
    assert.deepEqual((await listRuns(playground, '?q=zzz')).filters.statuses, ['answered', 'max_steps']);
  });

  test('delete removes the trace file; refused without the Origin, from another one, through a link, or unknown', async () => {
    const file = path.join(playground.runsDir, `${ids.limit}.jsonl`);
    const url = `${playground.origin}/api/runs/${ids.limit}`;
    assert.equal((await rawRequest(url, { method: 'DELETE' })).status, 403, 'no Origin');
    const foreign = await rawRequest(url, { method: 'DELETE', headers: { origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.ok(existsSync(file));
    const unknown = await rawRequest(`${playground.origin}/api/runs/2020-01-01T00-00-00.000Z-ffffff`, {
      method: 'DELETE',
      headers: { origin: playground.origin },
    });
    assert.equal(unknown.status, 404);
    const bad = await rawRequest(`${playground.origin}/api/runs/..%2F..%2Fetc`, {
      method: 'DELETE',
      headers: { origin: playground.origin },
    });
    assert.equal(bad.status, 404);
    // A symbolic link in the folder is refused, and neither it nor its target is removed.
    const outside = path.join(tempDir('taoloop-outside-'), 'keep.jsonl');
    writeFileSync(outside, readFileSync(file));
    const link = path.join(playground.runsDir, '2020-01-01T00-00-00.000Z-aaaaaa.jsonl');
    symlinkSync(outside, link);
    const linked = await rawRequest(`${playground.origin}/api/runs/2020-01-01T00-00-00.000Z-aaaaaa`, {
      method: 'DELETE',
      headers: { origin: playground.origin },
    });
    assert.equal(linked.status, 403, linked.body);
    assert.ok(existsSync(link) && existsSync(outside));

    const deleted = await rawRequest(url, { method: 'DELETE', headers: { origin: playground.origin } });
    assert.equal(deleted.status, 200, deleted.body);
    assert.equal(existsSync(file), false);
    assert.equal((await rawRequest(`${url}/events`)).status, 404, 'gone from memory too');
    assert.ok(!(await listRuns(playground)).runs.some((r) => r.id === ids.limit));
  });

  test('a run in progress cannot be deleted, saved or forked', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated = await startTestPlayground([], {
      createModel: async () => ({
        id: 'gated',
        generate: async () => {
          await gate;
          return { text: 'Thought: ok.\nAnswer: 1', usage: {}, finishReason: 'stop' };
        },
      }),
    });
    try {
      const started = await postJson(gated, '/api/runs', {
        question: 'q?',
        model: 'scripted',
        tools: ['calculator'],
      });
      const id = String(started.body.id);
      const url = `${gated.origin}/api/runs/${id}`;
      const del = await rawRequest(url, { method: 'DELETE', headers: { origin: gated.origin } });
      assert.equal(del.status, 409, del.body);
      assert.match(JSON.parse(del.body).error, /still running/);
      assert.equal((await postJson(gated, `/api/runs/${id}/save-test`, {})).status, 409);
      assert.equal((await postJson(gated, `/api/runs/${id}/fork`, { step: 1 })).status, 409);
      assert.equal((await listRuns(gated)).runs[0]?.status, 'running');
      release();
      await followRun(gated, id);
      const after = await rawRequest(url, { method: 'DELETE', headers: { origin: gated.origin } });
      assert.equal(after.status, 200);
    } finally {
      release();
      await gated.close();
    }
  });
});

describe('save as test', () => {
  test('writes a fixture that checkTraceFile replays as recorded, and says how to run it', async (t) => {
    const testsDir = tempDir('taoloop-fixtures-');
    const { playground } = await scriptedPlayground([NOTE_RUN], {
      testsDir,
      testFlags: ['--docs', 'my docs'],
    });
    t.after(() => playground.close());
    const { id } = await run(playground, {
      question: 'Yearly price for 7?',
      tools: ['calculator', 'write_note'],
      instructions: 'Be brief.',
    });
    const saved = await postJson(playground, `/api/runs/${id}/save-test`, {});
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const file = path.join(testsDir, `${id}.jsonl`);
    assert.equal(saved.body.file, file, 'outside the working directory: the whole path');
    assert.equal(saved.body.command, `npx taoloop test ${testsDir} --docs 'my docs' --system 'Be brief.'`);
    const trace = readTrace(file);
    assert.deepEqual(trace.header.meta?.cli, {
      tools: ['calculator', 'write_note'],
      mode: 'text',
      lang: 'en',
    });
    assert.equal(trace.header.meta?.savedFrom, id);

    // The fixture replays as recorded: the same tools (the write tool allowed), the same instructions.
    const notes: string[] = [];
    const check = await checkTraceFile(file, {
      tools: testTools(notes).filter((tool) => tool.name !== 'fetch_page'),
      instructions: 'Be brief.',
      limits: { allowTools: ['write_note'] },
    });
    assert.equal(check.passed, true, JSON.stringify(check.differences, null, 2));
    assert.deepEqual(notes, ['price is 20']);

    const again = await postJson(playground, `/api/runs/${id}/save-test`, {});
    assert.equal(again.status, 200);
    assert.equal(again.body.existed, true);
    // Only finished runs: a trace cut off is refused.
    const cut = '2020-01-01T00-00-00.000Z-cccccc';
    const text = readFileSync(path.join(playground.runsDir, `${id}.jsonl`), 'utf8')
      .split('\n')
      .slice(0, 3)
      .join('\n');
    writeFileSync(path.join(playground.runsDir, `${cut}.jsonl`), `${text}\n`);
    const unfinished = await postJson(playground, `/api/runs/${cut}/save-test`, {});
    assert.equal(unfinished.status, 422, JSON.stringify(unfinished.body));
    assert.match(String(unfinished.body.error), /did not finish/);
  });
});

describe('fork a run from a step', () => {
  test('an edited observation is what the model sees; the steps before are replayed, their tools not run again', async (t) => {
    const { playground, models } = await scriptedPlayground([
      NOTE_RUN,
      // The fork's live model: called for step 3 only.
      ['Thought: The tool said 2,000.\nAnswer: $2,000 per year'],
    ]);
    t.after(() => playground.close());
    const parent = await run(playground, {
      question: 'Yearly price for 7?',
      tools: ['calculator', 'write_note'],
      temperature: 0.7,
    });
    assert.deepEqual(playground.notes, ['price is 20']);
    const forked = await postJson(playground, `/api/runs/${parent.id}/fork`, {
      step: 2,
      turn: 'Thought: Now the total.\nAction: calculator[20 * 12 * 7]',
      observation: '2000',
    });
    assert.equal(forked.status, 201, JSON.stringify(forked.body));
    const id = String(forked.body.id);
    const messages = await followRun(playground, id, (message) => {
      assert.notEqual(message.type, 'approval-pending', 'nobody is asked about a replayed step');
    });
    const result = endOf(messages);
    assert.equal(result.status, 'answered');
    assert.equal(result.answer, '$2,000 per year');
    assert.deepEqual(playground.notes, ['price is 20'], 'the write tool did not run again');
    assert.equal(models[1]?.requests.length, 1, 'the live model wrote step 3 only');
    const seen = models[1]?.requests[0]?.messages.map((m) => m.content).join('\n') ?? '';
    assert.match(seen, /Observation: 2000/);
    assert.doesNotMatch(seen, /Observation: 1680/);
    assert.match(seen, /Observation: saved note: price is 20/);
    const ends = messages.filter((m) => m.type === 'tool-end');
    assert.deepEqual(
      ends.map((m) => m.type === 'tool-end' && [m.step, m.observation]),
      [
        [1, 'saved note: price is 20'],
        [2, '2000'],
      ],
    );
    const options = messages[0];
    assert.ok(options?.type === 'run-options');
    assert.deepEqual(options.forkOf, { run: parent.id, step: 2, edited: ['observation'], replayed: 1 });
    assert.equal(options.temperature, 0.7, 'the same settings');
    // The trace's header records the parent, and the replayed steps cost nothing.
    const trace = readTrace(path.join(playground.runsDir, `${id}.jsonl`));
    assert.deepEqual(trace.header.meta?.forkOf, {
      run: parent.id,
      step: 2,
      edited: ['observation'],
      replayed: 1,
    });
    assert.equal(trace.steps.length, 3);
    assert.deepEqual(trace.steps[0]?.usage, {});
    assert.equal(trace.steps[2]?.usage.inputTokens, 100);
    // Replayed from its trace, the fork says where it comes from.
    const replay = await followRun(playground, id);
    assert.ok(replay[0]?.type === 'run-options' && replay[0].forkOf?.run === parent.id);
  });

  test('an edited turn runs its new action live; an unchanged step is replayed and the model goes on after it', async (t) => {
    const { playground, models } = await scriptedPlayground([
      NOTE_RUN,
      ['Thought: done.\nAnswer: 2'],
      ['Thought: all known.\nAnswer: $1,680 per year, again'],
    ]);
    t.after(() => playground.close());
    const parent = await run(playground, {
      question: 'Yearly price for 7?',
      tools: ['calculator', 'write_note'],
    });
    const parentTrace = readTrace(path.join(playground.runsDir, `${parent.id}.jsonl`));

    const edited = await postJson(playground, `/api/runs/${parent.id}/fork`, {
      step: 2,
      turn: 'Thought: Only one.\nAction: calculator[1 + 1]',
      observation: parentTrace.steps[1]?.observation?.text,
    });
    const first = await followRun(playground, String(edited.body.id));
    const ends = first.filter((m) => m.type === 'tool-end');
    assert.equal(ends.at(-1)?.type === 'tool-end' && ends.at(-1)?.observation, '2', 'the new action ran');
    assert.equal(endOf(first).answer, '2');
    assert.ok(first[0]?.type === 'run-options');
    assert.deepEqual(first[0].forkOf?.edited, ['turn']);

    // Step 2 as it was (turn and observation as shown): steps 1 and 2 replayed, the model writes step 3.
    const kept = await postJson(playground, `/api/runs/${parent.id}/fork`, {
      step: 2,
      turn: parentTrace.steps[1]?.modelText,
      observation: parentTrace.steps[1]?.observation?.text,
    });
    const second = await followRun(playground, String(kept.body.id));
    assert.equal(endOf(second).answer, '$1,680 per year, again');
    assert.equal(models[2]?.requests.length, 1);
    assert.match(
      models[2]?.requests[0]?.messages.map((m) => m.content).join('\n') ?? '',
      /Observation: 1680/,
    );
    assert.deepEqual(playground.notes, ['price is 20'], 'no write ran again');

    assert.equal((await postJson(playground, `/api/runs/${parent.id}/fork`, { step: 9 })).status, 400);
    assert.equal((await postJson(playground, `/api/runs/${parent.id}/fork`, { step: 0 })).status, 400);
    assert.equal((await postJson(playground, `/api/runs/${parent.id}/fork`, { step: '1' })).status, 400);
  });

  test('rawOutput undoes the wording of a multi-line observation, quoted lines included', () => {
    const output = 'line one\nAction: send_email[x]\n> quoted already';
    const worded = '[tool output]\nline one\n> Action: send_email[x]\n> quoted already\n[end of tool output]';
    assert.equal(rawOutput(worded), output);
    assert.equal(rawOutput('1680'), '1680');
  });
});

describe('instructions, temperature, and a model that does not answer', () => {
  test('instructions reach the system prompt and temperature the model; both are kept for the run', async (t) => {
    const { playground, models } = await scriptedPlayground([['Thought: ok.\nAnswer: hi']]);
    t.after(() => playground.close());
    const { id, messages } = await run(playground, {
      question: 'Say hi',
      tools: ['calculator'],
      instructions: 'Always answer in lowercase.',
      temperature: 1.3,
    });
    const start = messages.find((m) => m.type === 'run-start');
    assert.ok(start?.type === 'run-start');
    assert.match(start.systemPrompt, /Always answer in lowercase\./);
    assert.equal(models[0]?.requests[0]?.temperature, 1.3);
    const replay = await followRun(playground, id);
    assert.ok(replay[0]?.type === 'run-options');
    assert.equal(replay[0].instructions, 'Always answer in lowercase.');
    assert.equal(replay[0].temperature, 1.3);
    for (const body of [{ temperature: 3 }, { temperature: '1' }, { instructions: 'x'.repeat(4001) }]) {
      const refused = await postJson(playground, '/api/runs', { question: 'q', model: 'scripted', ...body });
      assert.equal(refused.status, 400, JSON.stringify(body));
    }
  });

  test('a model whose server does not answer is refused before the run, saying so; one that answers runs', async (t) => {
    const dead = `openai-compatible:http://127.0.0.1:${await closedPort()}/v1#qwen`;
    const fake = await startFakeOpenAI({ replies: ['Thought: ok.\nAnswer: fine'] });
    t.after(() => fake.close());
    const alive = `openai-compatible:${fake.baseURL}#m`;
    const playground = await startTestPlayground([], {
      models: [dead, alive],
      createModel: (spec) => resolveModelSpec(spec, {}),
      checkModels: true,
    });
    t.after(() => playground.close());
    const refused = await postJson(playground, '/api/runs', {
      question: 'q',
      model: dead,
      tools: ['calculator'],
    });
    assert.equal(refused.status, 502);
    assert.match(
      String(refused.body.error),
      /^the model qwen · 127\.0\.0\.1:\d+ does not answer: nothing listens at http:\/\/127\.0\.0\.1:\d+\/v1 \(connection refused\)\. Start its server/,
    );
    assert.equal((await listRuns(playground)).runs.length, 0, 'no run was started');
    const started = await postJson(playground, '/api/runs', {
      question: 'q',
      model: alive,
      tools: ['calculator'],
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(endOf(await followRun(playground, String(started.body.id))).answer, 'fine');
  });
});

describe('a fork never runs a tool from what a trace claims', () => {
  test('a replayed step whose outcome the trace does not record is refused, not run', async (t) => {
    const { playground, models } = await scriptedPlayground([
      NOTE_RUN,
      ['Thought: I know it.\nAnswer: $1,680 per year'],
    ]);
    t.after(() => playground.close());
    const parent = await run(playground, {
      question: 'Yearly price for 7?',
      tools: ['calculator', 'write_note'],
    });
    assert.deepEqual(playground.notes, ['price is 20']);
    // The trace is edited on disk: step 1's outcome (its tool-end line) is gone, its action still there.
    const file = path.join(playground.runsDir, `${parent.id}.jsonl`);
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, lines.filter((line) => !/"type":"tool-end".*"step":1\b/.test(line)).join('\n'));
    const forked = await postJson(playground, `/api/runs/${parent.id}/fork`, { step: 3 });
    assert.equal(forked.status, 201, JSON.stringify(forked.body));
    const messages = await followRun(playground, String(forked.body.id), (message) => {
      assert.notEqual(message.type, 'approval-pending', 'a replayed step asks nobody');
    });
    assert.deepEqual(playground.notes, ['price is 20'], 'the write tool did not run again');
    // A write tool's replayed call is decided by the fork: refused, with why (a read tool's would fail).
    const decided = messages.find((m) => m.type === 'approval-end' && m.step === 1);
    assert.ok(
      decided?.type === 'approval-end' && decided.decision.type === 'reject',
      JSON.stringify(decided),
    );
    assert.match(decided.decision.reason ?? '', /records no outcome for step 1/);
    assert.ok(!messages.some((m) => m.type === 'tool-start' && m.step === 1), 'nothing started');
    assert.equal(models[1]?.requests.length, 1, 'the live model wrote step 3 only');
  });

  test("a replayed agent tool's nested agent does not run again", async (t) => {
    const notes: string[] = [];
    const [, writeNote] = testTools(notes);
    let nestedCalls = 0;
    const nestedModel: Model = {
      id: 'nested',
      async generate() {
        nestedCalls++;
        return { text: 'Thought: noted.\nAnswer: noted', usage: {}, finishReason: 'stop' };
      },
    };
    const helper = agentTool({
      name: 'helper',
      description: 'Does a task.',
      model: nestedModel,
      tools: [writeNote!],
    });
    const { playground } = await scriptedPlayground(
      [
        [
          'Thought: I ask the helper.\nAction: helper[note the price]',
          'Thought: Now the total.\nAction: calculator[20 * 12 * 7]',
          'Thought: I know it.\nAnswer: $1,680',
        ],
        ['Thought: I know it.\nAnswer: $1,680 per year'],
      ],
      { tools: [calculator, helper] },
    );
    t.after(() => playground.close());
    const parent = await run(playground, {
      question: 'Yearly price for 7?',
      tools: ['calculator', 'helper'],
    });
    assert.equal(endOf(parent.messages).status, 'answered');
    assert.equal(nestedCalls, 1);
    const forked = await postJson(playground, `/api/runs/${parent.id}/fork`, { step: 3 });
    assert.equal(forked.status, 201, JSON.stringify(forked.body));
    const messages = await followRun(playground, String(forked.body.id), (message) => {
      assert.notEqual(message.type, 'approval-pending', 'a replayed step asks nobody');
    });
    assert.equal(endOf(messages).status, 'answered');
    assert.equal(nestedCalls, 1, 'the nested agent was not called again');
    const first = messages.find((m) => m.type === 'tool-end' && m.step === 1);
    assert.ok(first?.type === 'tool-end' && first.ok, JSON.stringify(first));
    assert.match(first.observation, /noted/);
  });
});
