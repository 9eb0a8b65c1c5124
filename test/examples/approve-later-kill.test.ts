/**
 * `examples/app/approve-later.ts` survives a kill at every effect boundary (issue 27): the resuming process
 * is killed (SIGKILL) just before and just after each of its writes (the claim, each checkpoint, the email,
 * the cleanup) and while its model call is in flight; then `continue` (or, when the decision was not stored
 * yet, `decide` again) finishes the run. Whatever the kill, the email is sent once, the tool runs at most
 * once more than it must (with the same `callId`, which the outbox drops), and at most one model call is
 * made again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

const EXAMPLE = 'examples/app/approve-later.ts';
const KILL_AT = fileURLToPath(new URL('./fixtures/kill-at.mjs', import.meta.url));
const ACTION = 'Thought: I will email Ann.\nAction: send_email[ann@example.com]';
const ANSWER = 'Thought: Sent.\nAnswer: Ann knows the report is ready.';
const SECRET = 'a test secret of at least 32 characters';

interface Exit {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A model that acts until it has seen an observation, then answers: a repeated call gets the same reply. */
async function model(onRequest?: () => void) {
  return startFakeOpenAI({
    replies: (request) => {
      onRequest?.();
      return request.messages.some((m) => String(m.content).includes('sent to ann@example.com'))
        ? ANSWER
        : ACTION;
    },
  });
}

function example(args: string[], env: Record<string, string>, started?: (kill: () => void) => void) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', KILL_AT, EXAMPLE, ...args], {
    env: { ...process.env, TAOLOOP_RUN_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started?.(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal }));
  });
}

/** A folder holding the paused state `ask` wrote (the same for every scenario). */
let paused: string;
/** How many writes an undisturbed `decide` makes. */
let writes: number;

test.before(async () => {
  const server = await model();
  try {
    paused = mkdtempSync(join(tmpdir(), 'taoloop-kill-'));
    const env = { TAOLOOP_MODEL: `openai-compatible:${server.baseURL}#fake` };
    const asked = await example(['ask', join(paused, 'state.json')], env);
    assert.equal(asked.stdout, 'waiting: send_email[ann@example.com]\n', asked.stderr);
  } finally {
    await server.close();
  }
});

test.after(() => rmSync(paused, { recursive: true, force: true }));

/**
 * Runs `decide` (killed as `kill` says), then recovers as an operator would until the run is over, and
 * checks what happened.
 */
async function scenario(kill: { at?: number; when?: 'before' | 'after'; inModelCall?: boolean }) {
  const folder = mkdtempSync(join(tmpdir(), 'taoloop-kill-'));
  const state = join(folder, 'state.json');
  copyFileSync(join(paused, 'state.json'), state);
  let killChild: (() => void) | undefined;
  let killInCall = kill.inModelCall === true;
  const server = await model(() => {
    if (!killInCall) return;
    killInCall = false;
    killChild?.();
  });
  const env = { TAOLOOP_MODEL: `openai-compatible:${server.baseURL}#fake`, KILL_DIR: folder };
  try {
    const first = await example(
      ['decide', state, 'approve'],
      { ...env, ...(kill.at !== undefined && { KILL_AT: String(kill.at), KILL_WHEN: kill.when! }) },
      (k) => (killChild = k),
    );
    const runs: Exit[] = [first];
    for (let attempt = 0; attempt < 4; attempt++) {
      const next = existsSync(`${state}.running`) ? 'continue' : existsSync(state) ? 'decide' : undefined;
      if (next === undefined) break;
      runs.push(await example([next, state, 'approve'], env));
    }
    const out = runs.map((r) => r.stdout).join('');
    const what = `${JSON.stringify(kill)}: ${runs.map((r) => `${r.code ?? r.signal}\n${r.stdout}${r.stderr}`).join('\n---\n')}`;
    return { folder, state, first, runs, out, what, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

function check(result: Awaited<ReturnType<typeof scenario>>) {
  const { folder, state, out, what, requests } = result;
  try {
    assert.match(out, /answered: Ann knows the report is ready\./, what);
    const outbox = readFileSync(`${state}.outbox`, 'utf8').trim().split('\n');
    assert.equal(outbox.length, 1, `the email was sent once: ${what}`);
    assert.match(outbox[0]!, /:step-1 ann@example\.com$/, 'keyed by the call id');
    // The tool runs once, or twice when the kill came while it ran (before its checkpoint was stored).
    const ran = (out.match(/\(sending the email|\(already sent/g) ?? []).length;
    assert.ok(ran >= 1 && ran <= 2, `at most one repeat of the tool: ${what}`);
    // One model call is needed after the approval; a kill may repeat the one in flight.
    assert.ok(requests >= 1 && requests <= 2, `${requests} model calls: ${what}`);
    assert.equal(existsSync(state), false, what);
    assert.equal(existsSync(`${state}.running`), false, what);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test('an undisturbed decide: one email, one model call, nothing left to continue', async () => {
  const result = await scenario({});
  assert.equal(result.first.code, 0, result.what);
  writes = Number(/writes: (\d+)/.exec(result.first.stderr)?.[1]);
  // The claim, three checkpoints (each a write and a rename), the email and the cleanup.
  assert.equal(writes, 9, result.what);
  assert.equal(result.requests, 1);
  check(result);
});

test('killed just before and just after each of its writes, decide is finished by continue', async () => {
  assert.ok(writes > 0, 'the undisturbed run counted its writes');
  for (let at = 1; at <= writes; at++) {
    for (const when of ['before', 'after'] as const) {
      const result = await scenario({ at, when });
      assert.equal(result.first.signal, 'SIGKILL', `the kill happened: ${result.what}`);
      check(result);
    }
  }
});

test('killed while its model call is in flight, decide is finished by continue', async () => {
  const result = await scenario({ inModelCall: true });
  assert.equal(result.first.signal, 'SIGKILL', result.what);
  assert.equal(result.requests, 2, 'the call in flight was made again, once');
  check(result);
});
