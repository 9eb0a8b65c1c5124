/**
 * The parser against real model output: the recorded ReAct FEVER runs (GPT-3 text-davinci-002, Yao et al.
 * 2022). Each step is rebuilt as the model wrote it, `Thought i: ...` then `Action i: ...`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseTurn } from '../../src/react/parse.js';
import { skipUnless } from '../helpers/require.js';

interface Step {
  step: number;
  thought: string;
  action: string;
}
interface Run {
  question_idx: number;
  steps: Step[];
}

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');
const fixture = join(repoRoot, 'test', 'fixtures', 'fever-trajectories-sample.jsonl');
const shared = join(
  repoRoot,
  '..',
  'shared',
  'react-data',
  'trajectories',
  'react_fever_gpt3-text-davinci-002_first200.jsonl',
);
const tools = ['search', 'lookup'];

function readRuns(path: string): Run[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Run);
}

function turnText(step: Step): string {
  return `Thought ${step.step}: ${step.thought}\nAction ${step.step}: ${step.action}`;
}

/** The 6 malformed actions in the 200 runs, pinned by the explicit tests below. */
function isMalformed(action: string): boolean {
  return action === 'Login' || action.endsWith('] on different website');
}

/** Checks every well-formed step; returns how many turns were parsed. */
function checkRuns(runs: readonly Run[]): number {
  let turns = 0;
  for (const run of runs) {
    for (const step of run.steps) {
      turns++;
      if (isMalformed(step.action)) continue;
      const match = /^(\w+)\[(.*)\]$/s.exec(step.action);
      assert.ok(match, `unexpected action form: ${step.action}`);
      const [, tool = '', input = ''] = match;
      const turn = parseTurn(turnText(step), { tools });
      const where = `run ${run.question_idx} step ${step.step}`;
      if (tool.toLowerCase() === 'finish') {
        assert.deepEqual(turn, { type: 'answer', text: input, thought: step.thought }, where);
      } else {
        assert.deepEqual(
          turn,
          { type: 'action', tool: tool.toLowerCase(), input, thought: step.thought },
          where,
        );
      }
    }
  }
  return turns;
}

describe('recorded ReAct FEVER runs (GPT-3)', () => {
  test('the committed sample parses as recorded', () => {
    const runs = readRuns(fixture);
    assert.equal(runs.length, 15);
    assert.equal(checkRuns(runs), 45);
  });

  test('all 200 runs (493 turns) parse as recorded', {
    skip: skipUnless(existsSync(shared), '../shared/react-data'),
  }, () => {
    const runs = readRuns(shared);
    assert.equal(runs.length, 200);
    assert.equal(checkRuns(runs), 493);
    const malformed = runs.flatMap((run) => run.steps).filter((step) => isMalformed(step.action));
    assert.equal(malformed.length, 6);
  });

  test('run 5074: Lookup[...] on different website is an action with trailing text', () => {
    const run = readRuns(fixture).find((r) => r.question_idx === 5074);
    const steps = run?.steps.filter((step) => step.action.endsWith('on different website')) ?? [];
    assert.equal(steps.length, 5);
    for (const step of steps) {
      assert.deepEqual(parseTurn(turnText(step), { tools }), {
        type: 'action',
        tool: 'lookup',
        input: 'The Dark Tower (2017 film)',
        trailingText: 'on different website',
        ignoredText: 'on different website',
        thought: step.thought,
      });
    }
  });

  test('run 5671: the bare action Login is unknown-syntax', () => {
    const step = readRuns(fixture)
      .find((r) => r.question_idx === 5671)
      ?.steps.find((s) => s.action === 'Login');
    assert.ok(step);
    const turn = parseTurn(turnText(step), { tools });
    assert.equal(turn.type, 'none');
    assert.ok(turn.type === 'none');
    assert.equal(turn.kind, 'unknown-syntax');
    assert.equal(turn.thought, step.thought);
    assert.match(turn.problem, /"Login"/);
    assert.match(turn.problem, /Valid tools: search, lookup\./);
  });
});
