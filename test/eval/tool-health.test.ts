/**
 * An eval whose tools all failed (Wikipedia unreachable offline) says so per strategy, and is marked as
 * having measured nothing, instead of reporting a score as if the agent had been tested.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../src/eval/datasets.js';
import type { PromptSet } from '../../src/eval/prompts.js';
import { runEval } from '../../src/eval/runner.js';
import { allToolsFailed, toolHealth, toolWarning } from '../../src/eval/tool-health.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const prompts = JSON.parse(readFileSync(fixture('eval-prompts.json'), 'utf8')) as PromptSet;
const dir = mkdtempSync(join(tmpdir(), 'taoloop-tool-health-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const unreachable: Tool[] = [
  {
    name: 'search',
    description: 'Searches Wikipedia.',
    run: () => {
      throw new Error('Wikipedia API could not be reached (getaddrinfo ENOTFOUND en.wikipedia.org)');
    },
  },
  { name: 'lookup', description: 'Looks up.', run: () => 'x' },
];

test('every search failing: the results count the failures, the warning says why, nothing was measured', async () => {
  const turns = ['Thought: search.\nAction: search[London]', 'Thought: guess.\nAction: finish[London]'];
  const run = await runEval({
    model: scriptedModel([...turns, ...turns, ...turns]),
    dataset: loadDataset(fixture('eval-qa.jsonl')),
    strategies: ['react'],
    prompts,
    createTools: () => unreachable,
    resultsFile: join(dir, 'results.jsonl'),
    limit: 3,
    concurrency: 1,
  });
  assert.equal(run.results.length, 3);
  for (const result of run.results) {
    assert.equal(result.toolCalls, 1);
    assert.equal(result.toolErrors, 1);
    assert.match(result.toolError ?? '', /^Error: Wikipedia API could not be reached/);
  }
  const [health] = toolHealth(run.results, ['react']);
  assert.deepEqual(
    { calls: health?.calls, errors: health?.errors, itemsAllFailed: health?.itemsAllFailed },
    { calls: 3, errors: 3, itemsAllFailed: 3 },
  );
  assert.equal(
    toolWarning(health!, 'run with --wiki-corpus for an offline corpus'),
    'react: Wikipedia could not be reached: 3 of 3 tool calls failed (e.g. Error: Wikipedia API could not be reached (getaddrinfo ENOTFOUND en.wikipedia.org)); run with --wiki-corpus for an offline corpus',
  );
  assert.equal(allToolsFailed(health!), true);
});

test('mostly working tools give no warning; tool-less strategies are left out', () => {
  const base = { itemId: 'a', status: 'answered', toolErrors: 0 } as const;
  const results = [
    { ...base, strategy: 'react', toolCalls: 3, toolErrors: 1 },
    { ...base, strategy: 'react', toolCalls: 2, toolErrors: 0 },
    { ...base, strategy: 'cot', toolCalls: 0 },
  ] as never;
  const health = toolHealth(results, ['react', 'cot']);
  assert.deepEqual(
    health.map((h) => h.strategy),
    ['react'],
  );
  assert.equal(toolWarning(health[0]!, undefined), undefined);
  assert.equal(allToolsFailed(health[0]!), false);
});
