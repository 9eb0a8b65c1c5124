/**
 * `taoloop run` and `taoloop chat` whose trace cannot be written mid-run (a full disk: the trace became
 * /dev/full; the runs folder removed): the answer still reaches the user, with a warning saying why the
 * trace stops, and the exit code is the run's.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv, tempDir } from './support.js';

const SCRIPT = [
  'Thought: Compute it.\nAction: calculator[20 * 12 * 7]',
  'Thought: The calculator gave the total.\nAnswer: $1,680 per year',
];

/** A fake server whose second call first runs `fault` (while the run's trace is open). */
function serverWithFault(fault: () => void) {
  return startFakeOpenAI({
    replies: (_request, index) => {
      if (index === 1) fault();
      return SCRIPT[index] ?? 'Answer: none';
    },
  });
}

test('run: a trace that became /dev/full mid-run (ENOSPC): answer printed, warning, exit 0, no half line', async (t) => {
  if (!existsSync('/dev/full')) return t.skip('no /dev/full on this system');
  const file = join(tempDir('taoloop-trace-full-'), 'run.jsonl');
  let kept = '';
  const server = await serverWithFault(() => {
    kept = readFileSync(file, 'utf8');
    rmSync(file);
    symlinkSync('/dev/full', file);
  });
  try {
    const args = ['run', 'Cost for 7?', '--tools', 'calculator', '--trace', file, '--no-stream'];
    const { code, stdout, stderr } = await runCli(
      [...args, '--model', `openai-compatible:${server.baseURL}#m`],
      {
        env: cliEnv().env,
      },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Answer: \$1,680 per year/);
    assert.match(stdout, /answered · 2 steps/, 'the footer is printed');
    assert.match(stderr, /taoloop: the trace could not be written: ENOSPC: no space left on device/);
    assert.equal(stderr.match(/could not be written/g)?.length, 1, `one warning: ${stderr}`);
    assert.doesNotMatch(stderr, /internal error|Error:/);
    assert.ok(kept.endsWith('\n'), 'the trace so far ends with a whole line');
  } finally {
    await server.close();
  }
});

test('run: the runs folder removed mid-run (ENOENT): answer printed, warning, exit 0', async () => {
  const { env, runs } = cliEnv();
  const server = await serverWithFault(() => rmSync(runs, { recursive: true, force: true }));
  try {
    const args = ['run', 'Cost for 7?', '--tools', 'calculator'];
    const { code, stdout, stderr } = await runCli(
      [...args, '--model', `openai-compatible:${server.baseURL}#m`],
      {
        env,
      },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Answer: \$1,680 per year/);
    assert.match(stderr, /taoloop: the trace could not be written: ENOENT: no such file or directory/);
    assert.equal(existsSync(runs), false, 'nothing is appended (or created) after the failure');
  } finally {
    await server.close();
  }
});
