/**
 * `taoloop serve` whose trace cannot be written (the trace became /dev/full: ENOSPC; the runs folder
 * removed: ENOENT): the run goes on and answers, the page gets a `trace-error` message, the server stays up,
 * and another run in flight is untouched.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ScriptedTurn } from '../../src/testing/scripted-model.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { readTrace } from '../../src/trace/trace.js';
import type { RunMessage } from '../../src/web/run-session.js';
import { followRun, postJson, startTestPlayground } from './helpers.js';

const ANSWER = 'Thought: The calculator gave it.\nAnswer: $1,680 per year';
const ACTION = 'Thought: I need the total.\nAction: calculator[20 * 12 * 7]';

/** The trace file in `dir` whose header asks `question`. */
function traceOf(dir: string, question: string): string {
  const name = readdirSync(dir).find(
    (n) => n.endsWith('.jsonl') && readTrace(path.join(dir, n)).header.question === question,
  );
  assert.ok(name, `a trace for ${question}`);
  return path.join(dir, name);
}

function typesOf(messages: RunMessage[]): string[] {
  return messages.map((m) => m.type);
}

test('serve: a trace that became /dev/full mid-run: the run answers with a trace-error; another run is untouched', async (t) => {
  if (!existsSync('/dev/full')) return t.skip('no /dev/full on this system');
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let created = 0;
  let runsDir = '';
  const faulty: ScriptedTurn[] = [
    ACTION,
    () => {
      const file = traceOf(runsDir, 'A?');
      rmSync(file);
      symlinkSync('/dev/full', file);
      return ANSWER;
    },
  ];
  const playground = await startTestPlayground([], {
    createModel: async () => {
      created += 1;
      if (created === 2) return scriptedModel(faulty);
      // Run B waits (its first call) until run A has ended.
      const inner = scriptedModel([ACTION, ANSWER]);
      const generate = async (request: Parameters<typeof inner.generate>[0]) => {
        await gate;
        return inner.generate(request);
      };
      return { id: 'gated', generate };
    },
  });
  runsDir = playground.runsDir;
  try {
    const b = await postJson(playground, '/api/runs', {
      question: 'B?',
      model: 'scripted',
      tools: ['calculator'],
    });
    assert.equal(b.status, 201);
    const a = await postJson(playground, '/api/runs', {
      question: 'A?',
      model: 'scripted',
      tools: ['calculator'],
    });
    assert.equal(a.status, 201);
    const messagesA = await followRun(playground, a.body.id as string);
    const traceError = messagesA.find((m) => m.type === 'trace-error');
    assert.ok(traceError, `a trace-error message: ${typesOf(messagesA).join(', ')}`);
    assert.match(
      traceError.type === 'trace-error' ? traceError.error : '',
      /^the trace could not be written: ENOSPC: no space left on device/,
    );
    const endA = messagesA.find((m) => m.type === 'run-end');
    assert.equal(endA?.type === 'run-end' && endA.result.status, 'answered');
    assert.ok(!messagesA.some((m) => m.type === 'run-error'));

    release();
    const messagesB = await followRun(playground, b.body.id as string);
    const endB = messagesB.find((m) => m.type === 'run-end');
    assert.equal(endB?.type === 'run-end' && endB.result.status, 'answered');
    assert.ok(!messagesB.some((m) => m.type === 'trace-error'));
    assert.equal(readTrace(traceOf(runsDir, 'B?')).result?.status, 'answered', "B's trace is whole");
    const runs = await fetch(`${playground.origin}/api/runs`);
    assert.equal(runs.status, 200, 'the server still answers');
  } finally {
    release();
    await playground.close();
  }
});

test('serve: the runs folder removed mid-run: the run answers with a trace-error, the server stays up', async () => {
  let runsDir = '';
  const playground = await startTestPlayground([
    ACTION,
    () => {
      rmSync(runsDir, { recursive: true, force: true });
      return ANSWER;
    },
  ]);
  runsDir = playground.runsDir;
  try {
    const started = await postJson(playground, '/api/runs', {
      question: 'Q?',
      model: 'scripted',
      tools: ['calculator'],
    });
    const messages = await followRun(playground, started.body.id as string);
    const traceError = messages.find((m) => m.type === 'trace-error');
    assert.match(
      traceError?.type === 'trace-error' ? traceError.error : '',
      /^the trace could not be written: ENOENT: no such file or directory/,
    );
    assert.equal(messages.filter((m) => m.type === 'trace-error').length, 1);
    const end = messages.find((m) => m.type === 'run-end');
    assert.equal(end?.type === 'run-end' && end.result.status, 'answered');
    assert.equal(existsSync(runsDir), false, 'nothing is written after the failure');
    const runs = await fetch(`${playground.origin}/api/runs`);
    assert.equal(runs.status, 200, 'the server still answers');
  } finally {
    await playground.close();
  }
});
