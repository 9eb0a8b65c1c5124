import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inFlagNames } from '../../src/cli/flag-names.js';

test('messages name the flag a CLI user can pass, never the library option', () => {
  assert.equal(
    inFlagNames('The model call failed: no answer within 2000 ms (modelTimeoutMs: 2000 ms).'),
    'The model call failed: no answer within 2000 ms (--model-timeout 2s).',
  );
  assert.equal(
    inFlagNames('maxSteps must be a whole number of at least 1, got 0.'),
    '--max-steps must be a whole number of at least 1, got 0.',
  );
  assert.equal(inFlagNames('(timeoutMs: 1500 ms)'), '(--timeout 1.5s)');
  assert.equal(inFlagNames('no option here'), 'no option here');
});
