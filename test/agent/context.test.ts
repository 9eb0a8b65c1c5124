import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitEntries, knownContextWindow } from '../../src/agent/context.js';

test('fitEntries leaves a transcript that fits untouched', () => {
  const entries = [{ modelText: 'a', observation: 'b' }];
  assert.deepEqual(fitEntries(entries, 1000), entries);
});

test('fitEntries keeps the first findings, shortens the oldest after them in one chunk, never the latest', () => {
  const long = 'y'.repeat(2000); // 500 tokens; an entry costs about 510
  const entries = [1, 2, 3, 4, 5].map((i) => ({ modelText: `turn ${i}`, observation: long }));
  // Budget 2200: entries 1-4 fit (2040), entry 5 passes it; the first two are kept (within half the
  // budget), then the oldest after them are shortened towards 60% of the budget, never the latest.
  const fitted = fitEntries(entries, 2200);
  assert.deepEqual(
    fitted.map((e) => (e.observation === long ? 'full' : 'short')),
    ['full', 'full', 'short', 'short', 'full'],
  );
  assert.match(
    fitted[2]!.observation!,
    /^\[observation shortened to fit the context window: 2000 characters\]$/,
  );
  // One more entry fits again: nothing else changes, so the request only appends.
  const next = fitEntries([...entries, { modelText: 'turn 6', observation: 'short' }], 2200);
  assert.deepEqual(next.slice(0, 5), fitted);
  const tight = fitEntries(entries, 10);
  assert.equal(tight.at(-1)!.observation, long, 'the latest step is never shortened');
  assert.equal(entries[0]!.observation, long, 'the input is not modified');
});

test('known context windows by model id', () => {
  assert.equal(knownContextWindow('openai:gpt-4o-mini'), 128_000);
  assert.equal(knownContextWindow('anthropic:claude-3-5-haiku-latest'), 200_000);
  assert.equal(knownContextWindow('openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-7b-instruct'), 32_768);
  assert.equal(knownContextWindow('scripted'), undefined);
});
