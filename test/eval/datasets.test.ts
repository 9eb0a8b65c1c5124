/**
 * Datasets and prompts: the paper's HotpotQA and FEVER samples and prompt files from ../shared (when
 * present), the user's own JSONL and prompt files, and errors that say what to change.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  DATA_DIR_ENV,
  dataDirCandidates,
  EvalConfigError,
  loadDataset,
  resolveDataDir,
} from '../../src/eval/datasets.js';
import { agentPrompt, FEVER_TASK, loadPrompts, zeroShotPrompts } from '../../src/eval/prompts.js';
import { singleCallPrompt } from '../../src/eval/single-call.js';
import { skipUnless } from '../helpers/require.js';
import { tempDir } from '../helpers/temp.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const shared = fileURLToPath(new URL('../../../shared/react-data', import.meta.url));
const hasShared = existsSync(shared);
const write = (name: string, text: string) => {
  const file = join(tempDir('taoloop-data-'), name);
  writeFileSync(file, text);
  return file;
};

describe('loadDataset', () => {
  test('a JSONL of question and answer', () => {
    const dataset = loadDataset(fixture('eval-qa.jsonl'));
    assert.equal(dataset.kind, 'qa');
    assert.equal(dataset.items.length, 8);
    assert.deepEqual(dataset.items[0], {
      id: 'q1',
      question: 'In which city was Ada Lovelace born?',
      answer: 'London',
    });
  });
  test('claims and labels are scored as FEVER; ids default to line numbers', () => {
    const file = write(
      'claims.jsonl',
      '{"claim": "A", "label": "SUPPORTS"}\n\n{"claim": "B", "label": "REFUTES"}\n',
    );
    const dataset = loadDataset(file);
    assert.equal(dataset.kind, 'fever');
    assert.deepEqual(
      dataset.items.map((i) => i.id),
      ['1', '3'],
    );
  });
  test('bad files say what is wrong', () => {
    assert.throws(() => loadDataset('/nonexistent.jsonl'), /Dataset file \/nonexistent\.jsonl not found/);
    assert.throws(() => loadDataset(write('a.jsonl', '{"question": "x"}\n')), /:1 needs "question"/);
    assert.throws(() => loadDataset(write('b.jsonl', '[1]\n')), /:1 is not a JSON object/);
    assert.throws(
      () =>
        loadDataset(
          write(
            'c.jsonl',
            '{"id": 1, "question": "x", "answer": "y"}\n{"id": 1, "question": "z", "answer": "y"}\n',
          ),
        ),
      /same id/,
    );
  });
  test('where the data folder is looked for: each folder once, from the taoloop folder too', () => {
    const here = process.cwd();
    process.chdir(fileURLToPath(new URL('../../', import.meta.url)));
    try {
      const looked = dataDirCandidates(undefined, { [DATA_DIR_ENV]: '/nope/data' });
      assert.equal(looked[0], '/nope/data');
      assert.equal(new Set(looked).size, looked.length, looked.join('\n'));
      assert.equal(looked.length, 2, looked.join('\n'));
    } finally {
      process.chdir(here);
    }
  });

  test('a missing data folder names where it looked and how to set it', () => {
    assert.throws(
      () => resolveDataDir('/nope/either'),
      (error: unknown) =>
        error instanceof EvalConfigError &&
        /looked in:\n {2}\/nope\/either\n.*TAOLOOP_REACT_DATA/s.test(error.message),
    );
  });
});

describe('prompts', () => {
  test('zero-shot prompts: none for questions, the task statement for claims; no "Examples:" heading', () => {
    assert.deepEqual(zeroShotPrompts('qa', ['react', 'cot']), { react: '', cot: '' });
    assert.deepEqual(zeroShotPrompts('fever', ['standard']), { standard: FEVER_TASK });
    assert.equal(singleCallPrompt('', 'cot').includes('Examples'), false);
    const fever = singleCallPrompt(FEVER_TASK, 'standard');
    assert.ok(fever.startsWith(FEVER_TASK), fever);
    assert.doesNotMatch(fever, /Examples/);
    assert.deepEqual(agentPrompt(''), { instructions: '', examples: [] });
    // The paper's examples keep their heading.
    assert.match(singleCallPrompt('Question: a?\nAnswer: b', 'standard'), /Examples:\n\nQuestion: a\?/);
  });

  test("the user's file, by strategy name; a missing prompt is named", () => {
    const prompts = loadPrompts('qa', ['react', 'cot'], {
      promptsFile: fixture('eval-prompts.json'),
      dataDir: () => '',
    });
    assert.match(prompts.react ?? '', /^Question: Who was the father/);
    const file = write('p.json', '{"cot": "Question: q\\nAnswer: a"}');
    assert.throws(
      () => loadPrompts('qa', ['react'], { promptsFile: file, dataDir: () => '' }),
      /has no "react" \(or "webthink_simple6"\) prompt/,
    );
  });
});

describe('the paper data in ../shared', { skip: skipUnless(hasShared, '../shared/react-data') }, () => {
  test('HotpotQA: the 500 sampled questions; FEVER: the 200 claims', () => {
    const hotpot = loadDataset('hotpotqa', () => shared);
    assert.deepEqual([hotpot.kind, hotpot.items.length], ['qa', 500]);
    const fever = loadDataset('fever', () => shared);
    assert.deepEqual([fever.kind, fever.items.length], ['fever', 200]);
    assert.ok(fever.items.every((item) => ['SUPPORTS', 'REFUTES', 'NOT ENOUGH INFO'].includes(item.answer)));
  });
  test("the paper's prompts: 6 HotpotQA examples, 3 FEVER examples with the task statement", () => {
    const qa = loadPrompts('qa', ['react', 'act', 'cot', 'standard'], { dataDir: () => shared });
    const react = agentPrompt(qa.react ?? '');
    assert.equal(react.examples.length, 6);
    assert.deepEqual(react.examples[0]?.steps[0]?.action, { tool: 'search', input: 'Colorado orogeny' });
    assert.equal(agentPrompt(qa.act ?? '').examples[0]?.steps[0]?.thought, undefined);
    const fever = agentPrompt(loadPrompts('fever', ['react'], { dataDir: () => shared }).react ?? '');
    assert.equal(fever.examples.length, 3);
    assert.match(fever.instructions, /^Determine if there is Observation that SUPPORTS or REFUTES a Claim/);
    assert.equal(
      fever.examples[0]?.question,
      'Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.',
    );
  });
});
