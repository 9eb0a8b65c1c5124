/**
 * Replaying the ReAct paper's recorded GPT-3 FEVER runs: the recorded turns as the model, the recorded
 * observations as the environment. The paper's strict action matching must give back every recorded reward
 * (110 of the 200); taoloop's parser understands the `Action 3:` whose `Finish[...]` sits two lines below.
 * The committed sample always runs; the full file runs when ../shared is present.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { paperAction, paperSplit, readRecordedRuns, recordedTurns } from '../../src/eval/paper-env.js';
import {
  changedRuns,
  endedDifferently,
  renderReplayMarkdown,
  replayRecordedRuns,
  turnsReadDifferently,
} from '../../src/eval/replay.js';
import { skipUnless } from '../helpers/require.js';

const sample = fileURLToPath(new URL('../fixtures/eval-fever-replay-sample.jsonl', import.meta.url));
const full = fileURLToPath(
  new URL(
    '../../../shared/react-data/trajectories/react_fever_gpt3-text-davinci-002_first200.jsonl',
    import.meta.url,
  ),
);

describe("the paper environment's action matching", () => {
  test('the notebook split needs exactly one `\\nAction i: `', () => {
    assert.deepEqual(paperSplit(' I should search.\nAction 1: Search[X]', 1), {
      thought: 'I should search.',
      action: 'Search[X]',
    });
    assert.equal(paperSplit('I should search.\nAction: Search[X]', 1), undefined);
    assert.equal(paperSplit('a\nAction 1: b\nAction 1: c', 1), undefined);
  });
  test('only search / lookup / finish / think [...] exactly, first letter lower-cased', () => {
    assert.deepEqual(paperAction('Search[Paramore]'), { type: 'search', input: 'Paramore' });
    assert.deepEqual(paperAction('Finish[NOT ENOUGH INFO]'), { type: 'finish', answer: 'NOT ENOUGH INFO' });
    // The newline is lower-cased instead of the F, then stripped: invalid, as recorded.
    assert.deepEqual(paperAction('\n\nFinish[NOT ENOUGH INFO]'), {
      type: 'invalid',
      text: 'Finish[NOT ENOUGH INFO]',
    });
    assert.deepEqual(paperAction('Lookup[x] on different website'), {
      type: 'invalid',
      text: 'lookup[x] on different website',
    });
    assert.deepEqual(paperAction('Login'), { type: 'invalid', text: 'login' });
    assert.deepEqual(paperAction(''), { type: 'invalid', text: '' });
  });
  test('turns are rebuilt with the whitespace the model wrote', () => {
    const run = readRecordedRuns(sample).find((r) => r.question_idx === 3522)!;
    const turn = recordedTurns(run)[2]!;
    assert.equal(turn.completion, `${run.steps[2]!.thought}\nAction 3: \n\nFinish[NOT ENOUGH INFO]`);
  });
});

describe('replay of the committed sample (9 runs)', () => {
  test('paper parser: every recorded reward, no environment mismatch', async () => {
    const paper = await replayRecordedRuns(sample, { parser: 'paper' });
    assert.equal(paper.total, 9);
    assert.equal(paper.correct, 4);
    for (const run of paper.runs) {
      assert.equal(run.reward, run.recordedReward, `run ${run.questionIdx}`);
      assert.deepEqual(run.envMismatches, [], `run ${run.questionIdx}`);
    }
  });

  test('taoloop parser: 3522 ends at turn 3 with the right label; the others keep their reward', async () => {
    const paper = await replayRecordedRuns(sample, { parser: 'paper' });
    const taoloop = await replayRecordedRuns(sample, { parser: 'taoloop' });
    assert.equal(taoloop.correct, 5);
    const changed = changedRuns(paper, taoloop);
    assert.deepEqual(
      changed.map((c) => c.questionIdx),
      [3522],
    );
    const run = changed[0]!.after;
    assert.equal(run.answer, 'NOT ENOUGH INFO');
    assert.equal(run.turnsUsed, 3);
    assert.equal(run.ended, 'answered');
    // The bare `Login` is a format error for taoloop too; the recorded next turn then answers.
    const login = taoloop.runs.find((r) => r.questionIdx === 5671)!;
    assert.deepEqual([login.answer, login.turnsUsed], ['NOT ENOUGH INFO', 3]);
    assert.deepEqual(
      endedDifferently(paper, taoloop).map((c) => [c.questionIdx, c.after.ended]),
      [[5074, 'repeated_action']],
    );
  });

  test('a replay never invents turns: it ends where the recording ends', async () => {
    const taoloop = await replayRecordedRuns(sample, { parser: 'taoloop' });
    for (const run of taoloop.runs) assert.ok(run.turnsUsed <= run.turnsRecorded, `run ${run.questionIdx}`);
  });
});

describe('replay of all 200 recorded runs', {
  skip: skipUnless(existsSync(full), '../shared/react-data'),
}, () => {
  test('paper parser reproduces 110 / 200 run by run; taoloop gives 111 / 200, changing run 3522', async () => {
    const paper = await replayRecordedRuns(full, { parser: 'paper' });
    const taoloop = await replayRecordedRuns(full, { parser: 'taoloop' });
    assert.equal(paper.total, 200);
    assert.equal(paper.correct, 110);
    for (const run of paper.runs) {
      assert.equal(run.reward, run.recordedReward, `run ${run.questionIdx}`);
      assert.deepEqual(run.envMismatches, [], `run ${run.questionIdx}`);
    }
    assert.equal(taoloop.correct, 111);
    assert.deepEqual(
      changedRuns(paper, taoloop).map((c) => c.questionIdx),
      [3522],
    );
    const markdown = renderReplayMarkdown(full, paper, taoloop);
    assert.match(markdown, /strict action matching\): \*\*110 \/ 200\*\*/);
    assert.match(markdown, /taoloop parser and loop: \*\*111 \/ 200\*\*/);
    assert.match(markdown, /\| 3522 \| NOT ENOUGH INFO \|/);
    // The 6 turns the paper's environment rejected and taoloop reads as actions: the two `Action i:` lines
    // with the action below them (3522, 565) and `Lookup[...] on different website` (5074).
    assert.deepEqual(
      turnsReadDifferently(paper, taoloop).map(
        (t) => `${t.questionIdx}/${t.step}: ${t.paper} → ${t.taoloop}`,
      ),
      [
        '3522/3: invalid → finish',
        '5074/3: invalid → lookup',
        '5074/4: invalid → lookup',
        '5074/5: invalid → lookup',
        '5074/6: invalid → lookup',
        '565/4: invalid → lookup',
      ],
    );
  });
});
