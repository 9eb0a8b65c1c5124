import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitEntries, knownContextWindow } from '../../src/agent/context.js';

test('fitEntries leaves a transcript that fits untouched', () => {
  const entries = [{ modelText: 'a', observation: 'b' }];
  assert.deepEqual(fitEntries(entries, 1000), entries);
});

test('fitEntries shortens only as many old observations as needed, never the latest', () => {
  const long = 'y'.repeat(2000);
  const entries = [1, 2, 3].map((i) => ({ modelText: `turn ${i}`, observation: long }));
  const fitted = fitEntries(entries, 1100);
  assert.match(fitted[0]!.observation!, /^\[observation shortened/);
  assert.equal(fitted[1]!.observation, long);
  assert.equal(fitted[2]!.observation, long);
  const tight = fitEntries(entries, 10);
  assert.equal(tight[2]!.observation, long, 'the latest step is never shortened');
  assert.equal(entries[0]!.observation, long, 'the input is not modified');
});

test('known context windows by model id', () => {
  assert.equal(knownContextWindow('openai:gpt-4o-mini'), 128_000);
  assert.equal(knownContextWindow('anthropic:claude-3-5-haiku-latest'), 200_000);
  assert.equal(knownContextWindow('openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-7b-instruct'), 32_768);
  assert.equal(knownContextWindow('scripted'), undefined);
});
