/**
 * The file store finds a conversation's traces by their names: loading a conversation that is not there
 * reads no trace, however many and however large the traces; a name is never trusted over a trace's own
 * header; and recording never throws.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { createSession } from '../../src/agent/session.js';
import type { AgentEvent, RunResult } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import {
  type ConversationFs,
  conversationFromTraces,
  createFileStore,
  NODE_CONVERSATION_FS,
} from '../../src/trace/conversation-store.js';
import { conversationKey, newRunFile } from '../../src/trace/runs.js';
import { createTraceWriter } from '../../src/trace/trace.js';
import { tempDir } from '../helpers/temp.js';

/** The store's file functions, counting the bytes of the traces read. */
function countingFs(): ConversationFs & { bytes: number } {
  const counting = {
    ...NODE_CONVERSATION_FS,
    bytes: 0,
    readTraceText(path: string) {
      const text = NODE_CONVERSATION_FS.readTraceText(path);
      counting.bytes += Buffer.byteLength(text);
      return text;
    },
  };
  return counting;
}

/** Bytes this process has read from files and pipes so far (Linux), else undefined. */
function bytesReadByProcess(): number | undefined {
  if (!existsSync('/proc/self/io')) return undefined;
  return Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

/**
 * Writes a finished trace of conversation `conversationId` with `bulk` characters of answer, named as the
 * store names it (`keyed`), or as other writers name theirs (no key).
 */
function writeTrace(
  folder: string,
  conversationId: string,
  bulk: number,
  { now = new Date(), keyed = true }: { now?: Date; keyed?: boolean } = {},
): string {
  const file = newRunFile(folder, now, keyed ? conversationId : undefined);
  const writer = createTraceWriter(file, { question: `q ${conversationId}`, modelId: 'm', conversationId });
  const answer = `${conversationId}: ${'x'.repeat(bulk)}`;
  const result = {
    status: 'answered',
    answer,
    messages: [
      { role: 'user', content: `q ${conversationId}` },
      { role: 'assistant', content: answer },
    ],
    steps: [],
    usage: {},
  } as unknown as RunResult;
  writer.write({ type: 'run-end', result } as AgentEvent);
  return file;
}

test('a miss reads no trace: bytes read stay zero with 40 traces or 80, small or large', async () => {
  const folder = tempDir('taoloop-store-');
  for (let i = 0; i < 40; i++) writeTrace(folder, `c-${i}`, 50_000, { keyed: i % 2 === 0 });
  const fs = countingFs();
  const store = createFileStore(folder, { fs });
  const misses: number[] = [];
  for (const more of [0, 40]) {
    for (let i = 0; i < more; i++) writeTrace(folder, `d-${i}`, 100_000);
    fs.bytes = 0;
    const before = bytesReadByProcess();
    assert.deepEqual(await store.load('unknown'), []);
    const after = bytesReadByProcess();
    if (before !== undefined && after !== undefined)
      assert.ok(after - before < 16_384, `the process read ${after - before} bytes for a miss`);
    misses.push(fs.bytes);
  }
  assert.deepEqual(misses, [0, 0]);
  // A hit reads its own trace (through the same file functions) and gives its conversation.
  const found = await store.load('c-8');
  assert.equal(String(found.at(-1)?.content).slice(0, 5), 'c-8: ');
  assert.ok(fs.bytes > 50_000 && fs.bytes < 120_000, `a hit read ${fs.bytes} bytes`);
});

test("a name is never trusted over the trace's header; a playground conversation is found by its first run's id", () => {
  const folder = tempDir('taoloop-store-');
  writeTrace(folder, 'a', 10, { now: new Date('2025-01-01T00:00:00Z') });
  const b = writeTrace(folder, 'b', 10, { now: new Date('2025-01-02T00:00:00Z') });
  // b's trace renamed to carry a's key (and newer than a's own): a's conversation stays a's.
  renameSync(b, b.replace(conversationKey('b'), conversationKey('a')));
  assert.match(String(conversationFromTraces(folder, 'a')?.at(-1)?.content), /^a: /);
  assert.equal(conversationFromTraces(folder, 'b'), undefined);
  // The playground's first run: its id is the conversation id and its name has no key; follow-ups have it.
  const first = writeTrace(folder, 'p', 10, { now: new Date('2025-01-03T00:00:00Z'), keyed: false });
  const id = basename(first, '.jsonl');
  const [header = '', ...rest] = readFileSync(first, 'utf8').split('\n');
  writeFileSync(first, [JSON.stringify({ ...JSON.parse(header), conversationId: id }), ...rest].join('\n'));
  assert.match(String(conversationFromTraces(folder, id)?.at(-1)?.content), /^p: /);
  writeTrace(folder, id, 10, { now: new Date('2025-01-04T00:00:00Z') });
  assert.match(String(conversationFromTraces(folder, id)?.at(-1)?.content), new RegExp(`^${id}: `));
  assert.ok(
    readdirSync(folder).every((name) => name.endsWith('.jsonl')),
    'the folder holds traces only',
  );
});

test('record never throws: a folder removed mid-run, or one that cannot be made, goes to onError; the run answers', async () => {
  const parent = tempDir('taoloop-store-');
  const folder = join(parent, 'runs');
  const errors: string[] = [];
  const store = createFileStore(folder, { onError: (error) => errors.push(error.message) });
  const model = scriptedModel([
    () => {
      rmSync(folder, { recursive: true, force: true });
      return 'Thought: easy.\nAnswer: 4';
    },
  ]);
  const chat = createSession({ model, tools: [], store, conversationId: 'c' });
  assert.equal((await chat.send('2 + 2?')).status, 'answered');
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /^the trace could not be written: ENOENT/);
  // A runs folder inside a file: the trace cannot even be created.
  writeFileSync(join(parent, 'file'), 'not a folder');
  const blocked = createFileStore(join(parent, 'file', 'runs'), {
    onError: (error) => errors.push(error.message),
  });
  const again = createSession({ model: scriptedModel(['Answer: 5']), tools: [], store: blocked });
  assert.equal((await again.send('2 + 3?')).status, 'answered');
  assert.match(errors[1] ?? '', /^the trace could not be written: (ENOTDIR|EEXIST)/);
});
