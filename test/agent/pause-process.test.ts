/**
 * Pause in one process, resume in another (issue 19): the paused run's state goes through a file, the
 * model is a local OpenAI-compatible server that counts requests, and the tool with a side effect appends to
 * a file, so the test sees how often each really happened. Each phase is `fixtures/pause-process.ts`,
 * spawned with `node --import tsx`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/pause-process.ts', import.meta.url));
const ACTION = 'Thought: I should add it.\nAction: append_line[buy milk]';
const ANSWER = 'Thought: It is added.\nAnswer: Added "buy milk".';

interface PhaseOutput {
  status: string;
  answer?: string;
  error?: string;
  pending?: { id: string; tool: string; input: string }[];
  steps: number;
  types: string[];
}

/** Runs one phase in a new Node process and returns what it printed. */
async function phase(args: string[]): Promise<PhaseOutput> {
  // Generous: tsx compiles the fixture and the library in each new process, on a loaded machine too.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FIXTURE, ...args], {
    timeout: 120_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as PhaseOutput;
}

for (const mode of ['run', 'stream'] as const) {
  test(`${mode}: paused in one process, resumed in a new one with an approval; the write ran once and no model call was repeated`, async () => {
    const server = await startFakeOpenAI({ replies: [ACTION, ANSWER] });
    const dir = tempDir();
    try {
      const paused = await phase(['pause', mode, server.baseURL, dir]);
      assert.equal(paused.status, 'paused');
      assert.deepEqual(
        paused.pending?.map((p) => [p.tool, p.input]),
        [['append_line', 'buy milk']],
      );
      assert.equal(server.requests.length, 1, 'one model call before the pause');
      assert.equal(existsSync(join(dir, 'notes.txt')), false, 'nothing written before the approval');
      assert.ok(existsSync(join(dir, 'state.json')));
      if (mode === 'stream') {
        assert.deepEqual(paused.types.slice(-3), ['approval-start', 'run-pause', 'run-end']);
        assert.ok(paused.types.includes('model-delta'), 'the model call streamed');
      }

      const resumed = await phase(['resume', mode, server.baseURL, dir]);
      assert.equal(resumed.status, 'answered', resumed.error);
      assert.equal(resumed.answer, 'Added "buy milk".');
      assert.equal(resumed.steps, 2);
      assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'buy milk\n', 'the write ran exactly once');
      assert.equal(server.requests.length, 2, 'the resumed run made one new model call, none again');
      const second = JSON.stringify(server.requests[1]!.messages);
      assert.match(second, /appended: buy milk/, 'the new call saw the observation of the approved write');
      assert.equal(server.requests[1]!.stream === true, mode === 'stream');
      if (mode === 'stream') {
        assert.deepEqual(resumed.types.slice(0, 5), [
          'run-start',
          'approval-end',
          'tool-start',
          'tool-end',
          'step-end',
        ]);
        assert.ok(
          !resumed.types.includes('approval-start'),
          'what was seen before the pause is not sent again',
        );
      }
    } finally {
      await server.close();
    }
  });
}

test('resumed in a new process with a rejection: nothing is written and the model is told', async () => {
  const server = await startFakeOpenAI({
    replies: [ACTION, 'Thought: Not allowed.\nAnswer: I did not add it.'],
  });
  const dir = tempDir();
  try {
    assert.equal((await phase(['pause', 'run', server.baseURL, dir])).status, 'paused');
    const resumed = await phase([
      'resume',
      'run',
      server.baseURL,
      dir,
      JSON.stringify({ type: 'reject', reason: 'not on my list' }),
    ]);
    assert.equal(resumed.status, 'answered');
    assert.equal(existsSync(join(dir, 'notes.txt')), false);
    assert.equal(server.requests.length, 2);
    assert.match(JSON.stringify(server.requests[1]!.messages), /rejected this action \(not on my list\)/);
  } finally {
    await server.close();
  }
});

// Through a nested agent (`agentTool` `notes_agent`): the parent asks it, it asks to write, the nested
// approval pauses the parent. One server answers both agents, in the order of their calls.
const DELEGATE = 'Thought: The notes agent can do it.\nAction: notes_agent[append "buy milk" to the notes]';
const NESTED_ANSWER = 'Thought: It is added.\nAnswer: appended "buy milk"';
const PARENT_ANSWER = 'Thought: The notes agent added it.\nAnswer: Added "buy milk" via the notes agent.';

for (const mode of ['run', 'stream'] as const) {
  test(`${mode}, nested agentTool: paused in one process, resumed in a new one into the nested run; the write ran once and no model call was repeated`, async () => {
    const server = await startFakeOpenAI({ replies: [DELEGATE, ACTION, NESTED_ANSWER, PARENT_ANSWER] });
    const dir = tempDir();
    try {
      const paused = await phase(['pause', mode, server.baseURL, dir, '--nested']);
      assert.equal(paused.status, 'paused', paused.error);
      assert.deepEqual(
        paused.pending?.map((p) => [p.tool, p.input]),
        [['append_line', 'buy milk']],
        'the nested tool call is the parent run’s pending approval',
      );
      assert.equal(server.requests.length, 2, 'before the pause: one parent call, one nested call');
      assert.match(JSON.stringify(server.requests[1]!.messages), /append \\"buy milk\\" to the notes/);
      assert.equal(existsSync(join(dir, 'notes.txt')), false, 'nothing written before the approval');
      assert.ok(existsSync(join(dir, 'state.json')));
      if (mode === 'stream') {
        assert.ok(
          paused.types.includes('notes_agent>approval-start'),
          'the nested approval reached the parent',
        );
        assert.deepEqual(paused.types.slice(-2), ['run-pause', 'run-end']);
        assert.ok(paused.types.includes('notes_agent>model-delta'), 'the nested model call streamed');
      }

      const resumed = await phase(['resume', mode, server.baseURL, dir, '--nested']);
      assert.equal(resumed.status, 'answered', resumed.error);
      assert.equal(resumed.answer, 'Added "buy milk" via the notes agent.');
      assert.equal(resumed.steps, 2);
      assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'buy milk\n', 'the write ran exactly once');
      assert.equal(
        server.requests.length,
        4,
        'the resumed run made two new calls (nested, then parent), none of the first two again',
      );
      const nestedSecond = JSON.stringify(server.requests[2]!.messages);
      assert.match(
        nestedSecond,
        /appended: buy milk/,
        'the nested call saw the approved write’s observation',
      );
      assert.doesNotMatch(
        nestedSecond,
        /The notes agent can do it/,
        'and is the nested agent’s, not the parent’s',
      );
      const parentSecond = JSON.stringify(server.requests[3]!.messages);
      assert.match(parentSecond, /appended \\"buy milk\\"/, 'the parent saw the nested agent’s answer');
      assert.match(parentSecond, /The notes agent can do it/);
      for (const request of server.requests) assert.equal(request.stream === true, mode === 'stream');
      if (mode === 'stream') {
        assert.ok(resumed.types.includes('notes_agent>approval-end'));
        assert.ok(
          !resumed.types.some((type) => type.endsWith('approval-start')),
          'what was seen before the pause is not sent again',
        );
      }
    } finally {
      await server.close();
    }
  });
}
