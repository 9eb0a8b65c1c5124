import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureTinyGguf, tinyGgufBytes } from '../../scripts/make-tiny-gguf.js';
import { runAgent } from '../../src/agent/loop.js';
import { ModelCallError, ModelConfigError } from '../../src/models/errors.js';
import { type LocalModel, localModel, turnGrammar } from '../../src/models/local.js';
import {
  type Downloader,
  type DownloaderOptions,
  ensureDefaultLocalModel,
  ensureLocalModelFile,
} from '../../src/models/local-download.js';
import { parseModelSpec } from '../../src/models/spec.js';
import type { Model, ModelRequest, TurnFormat } from '../../src/models/types.js';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { parseTurn } from '../../src/react/parse.js';
import type { Tool } from '../../src/tools/types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENGLISH = { thought: 'Thought', action: 'Action', answer: 'Answer' };
/** Short turns keep the tiny model fast: its tokens are single bytes. */
const SMALL = { maxThoughtChars: 60, maxInputChars: 30, maxAnswerChars: 60 };

function isConfigError(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ModelConfigError, `expected ModelConfigError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('turnGrammar', () => {
  it('allows Thought, then an Action naming a listed tool or finish, or an Answer', () => {
    const grammar = turnGrammar({ tools: ['search', 'lookup'], labels: ENGLISH });
    assert.match(grammar, /^root ::= "Thought: " thought "\\n" \(action \| answer\)$/m);
    assert.match(grammar, /^tool ::= "search" \| "lookup" \| "finish"$/m);
    assert.match(grammar, /^action ::= "Action: " tool "\[" input "\]"$/m);
    assert.match(grammar, /^input ::= \[\^\\\]\\n\]\{1,200\}$/m);
    assert.match(grammar, /^answer ::= "Answer: " \[\^\\n\]\{1,1000\} "\\n"\?$/m);
  });

  it('escapes names and labels, lists finish once, and uses the given labels and limits', () => {
    const grammar = turnGrammar(
      {
        tools: ['say"hi', 'back\\slash', 'finish'],
        labels: { thought: 'Pensamento', action: 'Ação', answer: 'Resposta' },
      },
      { maxInputChars: 12 },
    );
    assert.match(grammar, /^tool ::= "say\\"hi" \| "back\\\\slash" \| "finish"$/m);
    assert.match(grammar, /"Pensamento: "/);
    assert.match(grammar, /"Ação: " tool/);
    assert.match(grammar, /\{1,12\}/);
    assert.throws(() => turnGrammar({ tools: [], labels: ENGLISH }, { maxThoughtChars: 0 }), RangeError);
    assert.throws(() => turnGrammar({ tools: [], labels: ENGLISH }, { maxAnswerChars: 5000 }), RangeError);
  });
});

describe('local: model spec', () => {
  it('parses a file, an hf: URI and the bare default', () => {
    assert.deepEqual(parseModelSpec('local:./model.gguf'), { provider: 'local', source: './model.gguf' });
    assert.deepEqual(parseModelSpec(' LOCAL:hf:a/b/c.gguf '), { provider: 'local', source: 'hf:a/b/c.gguf' });
    assert.deepEqual(parseModelSpec('local:'), { provider: 'local', source: '' });
  });

  it('rejects a missing file and a file that is not GGUF, saying what to pass', async () => {
    await assert.rejects(
      resolveModelSpec('local:./no-such-model.gguf', {}),
      isConfigError(/Model file not found: .*no-such-model\.gguf.*--model local:\.\/model\.gguf/),
    );
    const dir = await mkdtemp(join(tmpdir(), 'taoloop-local-'));
    await writeFile(join(dir, 'fake.gguf'), 'not a model');
    await assert.rejects(
      resolveModelSpec(`local:${join(dir, 'fake.gguf')}`, {}),
      isConfigError(/not a GGUF/),
    );
    await rm(dir, { recursive: true });
  });

  it('importing taoloop or the spec module does not load node-llama-cpp', () => {
    const hook = `data:text/javascript,export async function resolve(s,c,n){if(s.includes('node-llama-cpp'))throw new Error('LOADED node-llama-cpp');return n(s,c)}`;
    const script = `import { register } from 'node:module'; register(${JSON.stringify(hook)}); await import('./src/index.ts'); const spec = await import('./src/models/spec.ts'); spec.parseModelSpec('local:x.gguf'); console.log('ok');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(child.stdout.trim(), 'ok', child.stderr);
  });

  it('without node-llama-cpp installed (an optional peer dependency), says how to install it', () => {
    // The resolve hook makes the package look absent, as for a user who never installed it.
    const hook = `data:text/javascript,export async function resolve(s,c,n){if(s==='node-llama-cpp'){const e=new Error('Cannot find package');e.code='ERR_MODULE_NOT_FOUND';throw e}return n(s,c)}`;
    const script = `import { register } from 'node:module'; register(${JSON.stringify(hook)}); const { importLlamaCpp } = await import('./src/models/local-engine.ts'); try { await importLlamaCpp(); console.log('loaded'); } catch (e) { console.log(e.name + ': ' + e.message); }`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.match(
      child.stdout,
      /^ModelConfigError: The embedded local model needs node-llama-cpp \(an optional dependency, about 84 MB\), which is not installed: run `npm install node-llama-cpp@3\.21\.1`/,
      child.stderr,
    );
  });
});

describe('downloading a local model (never the network: the lookup and downloader are injected)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'taoloop-cache-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const offline = () => Promise.reject(new Error('getaddrinfo ENOTFOUND huggingface.co'));
  const online = () => Promise.resolve({ address: '127.0.0.1' });
  const never = () => new Promise<never>(() => {});

  it('fails fast and clearly when offline', async () => {
    const started = performance.now();
    await assert.rejects(
      ensureDefaultLocalModel({ cacheDir: dir, lookup: offline, progress: null }),
      isConfigError(/offline.*--model local:\.\/model\.gguf.*configure a provider/s),
    );
    const hanging = ensureDefaultLocalModel({
      cacheDir: dir,
      lookup: never,
      lookupTimeoutMs: 100,
      progress: null,
    });
    await assert.rejects(hanging, isConfigError(/no DNS answer within 100 ms/));
    assert.ok(performance.now() - started < 2000);
  });

  it('gives up on a server that does not answer and on a stalled download, keeping no partial file', async () => {
    await assert.rejects(
      ensureDefaultLocalModel({
        cacheDir: dir,
        lookup: online,
        connectTimeoutMs: 100,
        createDownloader: never,
        progress: null,
      }),
      isConfigError(/no answer from the server/),
    );
    let cancelled = false;
    const stalled = async (options: DownloaderOptions): Promise<Downloader> => {
      await writeFile(join(options.dirPath, options.fileName), 'GGUF partial');
      const cancel = async () => {
        cancelled = true;
      };
      return { totalSize: 1000, download: never, cancel };
    };
    await assert.rejects(
      ensureDefaultLocalModel({
        cacheDir: dir,
        lookup: online,
        stallTimeoutMs: 200,
        createDownloader: stalled,
        progress: null,
      }),
      isConfigError(/no data for 0\.2 s/),
    );
    assert.ok(cancelled);
    assert.equal(
      existsSync(join(dir, 'Qwen--Qwen2.5-1.5B-Instruct-GGUF--qwen2.5-1.5b-instruct-q4_k_m.gguf.partial')),
      false,
    );
  });

  it('stops a download at once when the caller aborts, with the abort reason', async () => {
    const hanging = async (): Promise<Downloader> => ({ totalSize: 1000, download: never, cancel: never });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed Ctrl-C')), 50);
    await assert.rejects(
      ensureLocalModelFile('hf:a/b/c.gguf', {
        cacheDir: dir,
        lookup: online,
        createDownloader: hanging,
        progress: null,
        signal: controller.signal,
      }),
      /user pressed Ctrl-C/,
    );
  });

  it('downloads once with progress, verifies, and reuses the file; a file without a receipt is fetched again', async () => {
    const bytes = tinyGgufBytes();
    let downloads = 0;
    const fake = async (options: DownloaderOptions): Promise<Downloader> => ({
      totalSize: bytes.length,
      download: async () => {
        downloads += 1;
        options.onProgress({ totalSize: bytes.length, downloadedSize: bytes.length / 2 });
        const path = join(options.dirPath, options.fileName);
        await writeFile(path, bytes);
        options.onProgress({ totalSize: bytes.length, downloadedSize: bytes.length });
        return path;
      },
      cancel: async () => {},
    });
    const lines: string[] = [];
    const progress = { write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream;
    const uri = 'hf:someone/tiny-GGUF/tiny.gguf';
    const options = { cacheDir: dir, lookup: online, createDownloader: fake, progress };
    const path = await ensureLocalModelFile(uri, options);
    assert.equal(path, join(dir, 'someone--tiny-GGUF--tiny.gguf'));
    assert.deepEqual(JSON.parse(await readFile(`${path}.json`, 'utf8')), { uri, sizeBytes: bytes.length });
    assert.match(lines.join(''), /Downloading someone--tiny-GGUF--tiny\.gguf \[#+\.*\] 100%/);
    assert.equal(await ensureLocalModelFile(uri, { ...options, lookup: offline }), path);
    assert.equal(downloads, 1);
    await rm(`${path}.json`);
    assert.equal(await ensureLocalModelFile(uri, options), path);
    assert.equal(downloads, 2);
  });

  it('rejects a download whose size does not match', async () => {
    const short = async (options: DownloaderOptions): Promise<Downloader> => ({
      totalSize: 10_000,
      download: async () => {
        await writeFile(join(options.dirPath, options.fileName), 'GGUF-too-short');
        return join(options.dirPath, options.fileName);
      },
      cancel: async () => {},
    });
    await assert.rejects(
      ensureLocalModelFile('hf:a/b/short.gguf', {
        cacheDir: dir,
        lookup: online,
        createDownloader: short,
        progress: null,
      }),
      isConfigError(/incomplete or not a GGUF/),
    );
    assert.equal(existsSync(join(dir, 'a--b--short.gguf')), false);
  });
});

/** The loop sends `turnFormat`; this adds it for loops that do not (yet), so the grammar is always on. */
function withTurnFormat(model: LocalModel, format: TurnFormat): Model {
  const add = (request: ModelRequest): ModelRequest =>
    request.turnFormat ? request : { ...request, turnFormat: format };
  return {
    id: model.id,
    contextWindowTokens: model.contextWindowTokens,
    generate: (request) => model.generate(add(request)),
    stream: (request) => model.stream(add(request)),
  };
}

const tools: Tool[] = [
  {
    name: 'search',
    description: 'Searches the documents.',
    run: async () => 'Brightgrid Pro costs $20 per month.',
  },
  { name: 'lookup', description: 'Looks up a term.', run: async () => 'No entry for that term.' },
];
const format: TurnFormat = { tools: tools.map((t) => t.name), labels: ENGLISH };

describe('local model on a tiny random-weight GGUF (node-llama-cpp, CPU)', () => {
  let dir: string;
  let model: LocalModel;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'taoloop-tiny-'));
    model = await localModel(ensureTinyGguf(join(dir, 'tiny.gguf')), { grammarLimits: SMALL });
  });
  after(async () => {
    await model?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the agent loop: every turn is well formed, every action names a real tool, the prefix is reused', async () => {
    const result = await runAgent({
      model: withTurnFormat(model, format),
      tools,
      question: 'How much is Pro?',
      maxSteps: 4,
    });
    assert.equal(result.status, 'max_steps', result.error);
    assert.equal(result.steps.length, 4);
    for (const step of result.steps) {
      const turn = parseTurn(step.modelText, { tools: format.tools });
      assert.equal(turn.type, 'action', step.modelText);
      assert.ok(turn.type === 'action' && format.tools.includes(turn.tool), step.modelText);
      assert.match(step.modelText, /^Thought: [^\n]+\nAction: (search|lookup)\[[^\]\n]+\]$/);
      assert.equal(step.finishReason, 'stop');
    }
    const usages = result.steps.map((s) => s.usage);
    assert.equal(usages[0]?.cachedInputTokens, 0);
    for (let i = 1; i < usages.length; i++) {
      const [previous, current] = [usages[i - 1]!, usages[i]!];
      const evaluated = current.inputTokens! - current.cachedInputTokens!;
      assert.ok(current.cachedInputTokens! > 0);
      // Everything up to the end of the previous turn comes from the KV cache: only the observation and
      // the chat template's markers around it are evaluated.
      assert.ok(
        current.cachedInputTokens! >= previous.inputTokens! + previous.outputTokens! - 2,
        JSON.stringify(usages),
      );
      assert.ok(evaluated < 0.1 * current.inputTokens!, JSON.stringify(usages));
    }
  });

  it('evaluates the whole prompt every call when prefix reuse is off', async () => {
    const fresh = await localModel(model.path, { grammarLimits: SMALL, reusePrefix: false });
    try {
      const messages = [
        { role: 'system' as const, content: 'You answer.' },
        { role: 'user' as const, content: 'Question: why?' },
      ];
      const first = await fresh.generate({ messages, turnFormat: format });
      const second = await fresh.generate({
        messages: [
          ...messages,
          { role: 'assistant', content: first.text },
          { role: 'user', content: 'Observation: ok' },
        ],
        turnFormat: format,
      });
      assert.equal(second.usage.cachedInputTokens, 0);
      assert.ok(second.usage.inputTokens! > first.usage.inputTokens!);
    } finally {
      await fresh.dispose();
    }
  });

  it('reuses the prefix exactly, also for a model that wants a BOS token (no second BOS)', async () => {
    const bosModel = await localModel(ensureTinyGguf(join(dir, 'bos.gguf'), { addBos: true }), {
      grammarLimits: SMALL,
    });
    try {
      for (const m of [model, bosModel]) {
        const messages = [
          { role: 'system' as const, content: 'You answer.' },
          { role: 'user' as const, content: `Question: ${m.path}` },
        ];
        const first = await m.generate({ messages, turnFormat: format });
        const observation = { role: 'user' as const, content: 'Observation: ok' };
        const second = await m.generate({
          messages: [...messages, { role: 'assistant', content: first.text }, observation],
          turnFormat: format,
        });
        const { inputTokens, cachedInputTokens } = second.usage;
        assert.equal(cachedInputTokens, first.usage.inputTokens! + first.usage.outputTokens!, m.path);
        assert.ok(inputTokens! - cachedInputTokens! <= 40, JSON.stringify(second.usage));
      }
    } finally {
      await bosModel.dispose();
    }
  });

  it('refuses a prompt longer than the context and stops a turn at the end of the context', async () => {
    const small = await localModel(ensureTinyGguf(join(dir, 'small.gguf'), { contextLength: 512 }));
    try {
      assert.equal(small.contextWindowTokens, 512);
      await assert.rejects(
        small.generate({ messages: [{ role: 'user', content: 'x'.repeat(600) }] }),
        (error: unknown) =>
          error instanceof ModelCallError && /more than the context of 512 tokens/.test(error.message),
      );
      const full = await small.generate({
        messages: [{ role: 'user', content: 'x'.repeat(480) }],
        maxOutputTokens: 100,
      });
      assert.equal(full.finishReason, 'length');
      assert.ok(full.usage.inputTokens! + full.usage.outputTokens! <= 512, JSON.stringify(full.usage));
    } finally {
      await small.dispose();
    }
  });

  it('streams text deltas that add up to the turn, then usage', async () => {
    const parts = [];
    for await (const part of model.stream({
      messages: [{ role: 'user', content: 'Question: hi' }],
      turnFormat: format,
    })) {
      parts.push(part);
    }
    const last = parts.at(-1);
    assert.equal(last?.type, 'finish');
    const text = parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
    assert.equal(parseTurn(text, { tools: format.tools }).type, 'action');
    assert.ok(last?.type === 'finish' && last.usage.outputTokens! > 0);
  });

  it('follows a grammar in other labels, and writes free text (cut at maxOutputTokens) without a turn format', async () => {
    // Indonesian: the tiny model can only write ASCII (see scripts/make-tiny-gguf.ts).
    const id: TurnFormat = {
      tools: ['cari'],
      labels: { thought: 'Pikiran', action: 'Tindakan', answer: 'Jawaban' },
    };
    const turn = await model.generate({
      messages: [{ role: 'user', content: 'Pertanyaan: hai' }],
      turnFormat: id,
    });
    assert.match(turn.text, /^Pikiran: [^\n]+\n(Tindakan: (cari|finish)\[[^\]\n]+\]|Jawaban: [^\n]+\n?)$/);
    const free = await model.generate({ messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 8 });
    assert.equal(free.finishReason, 'length');
    assert.equal(free.usage.outputTokens, 8);
  });

  it('answers when the weights steer to Answer, and rejects an aborted request', async () => {
    const answering = await localModel(ensureTinyGguf(join(dir, 'answers.gguf'), { discourage: 'c' }), {
      grammarLimits: SMALL,
    });
    try {
      const turn = await answering.generate({
        messages: [{ role: 'user', content: 'Question: hi' }],
        turnFormat: format,
      });
      assert.match(turn.text, /^Thought: [^\n]+\nAnswer: [^\n]+\n?$/);
      assert.equal(parseTurn(turn.text, { tools: format.tools }).type, 'answer');
      const controller = new AbortController();
      controller.abort(new Error('stop now'));
      await assert.rejects(
        answering.generate({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal }),
        /stop now/,
      );
    } finally {
      await answering.dispose();
    }
  });
});
