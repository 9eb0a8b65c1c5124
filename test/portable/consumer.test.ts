/**
 * The package as a user gets it: packed (`npm pack`, of the build `npm test` made), checked by publint and
 * @arethetypeswrong/cli (ESM-only profile), installed from the tarball into an empty project (its
 * dependencies from the registry or npm's cache), then a file using the README's examples is type-checked
 * with `skipLibCheck: false` and run, and `require('taoloop')` works or says how to import.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, installApp, packTarball, ROOT, sh } from './helpers.js';

/**
 * The README's examples of `taoloop`, `taoloop/node`, `taoloop/testing` and `taoloop/protocol` (the `Journal`
 * type), type-checked for Node and run.
 * The model is scripted, so the run needs no server; `resolveModelSpec` is only resolved (no call).
 */
const APP = `import { calculator, createSearchTool, defineTool, runAgent, streamAgent } from 'taoloop';
import type { ApprovalDecision, ApprovalRequest, PriceTable, RunResult } from 'taoloop';
import {
  chooseModel,
  createFileStore,
  createReadFileTool,
  createSession,
  otlpTracer,
  readTrace,
  resolveModelSpec,
  createSearchTool as searchFolder,
  streamAgent as streamNode,
} from 'taoloop/node';
import type { Journal } from 'taoloop/protocol';
import {
  checkTraceFile,
  findTraceFiles,
  formatTraceCheck,
  parseCases,
  runCases,
  scriptedModel,
  summarizeTrials,
} from 'taoloop/testing';
import { mkdtempSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { browserModelError, browserRun } from './browser.js';

const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends an email.',
  input: z.object({ to: z.string().email(), body: z.string() }),
  effects: 'external',
  run: async ({ to }) => \`sent to \${to}\`,
});
const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> =>
  request.tool === 'send_email' ? { type: 'approve' } : { type: 'reject' };
const journal: Journal = (_name, effect) => effect();
const prices: PriceTable = { scripted: { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.4 } };
void [chooseModel, otlpTracer];

const docs = { 'pricing.md': 'Brightgrid Pro costs $20 per month per developer.' };
const model = scriptedModel([
  'Thought: price?\\nAction: search[Pro price]',
  'Thought: times 7 for a year.\\nAction: calculator[20 * 12 * 7]',
  'Thought: done.\\nAction: send_email[{"to": "a@example.com", "body": "1680"}]',
  'Thought: sent.\\nAnswer: $1,680 per year',
]);
const tools = [calculator, await createSearchTool({ documents: docs }), sendEmail];
const result: RunResult = await runAgent({ model, tools, question: 'Pro for 7, per year?', approve, durable: { journal }, maxSteps: 8 });
const folder = await searchFolder({ docsDir: process.argv[2] ?? '.' });
let events = 0;
for await (const _event of streamAgent({ model: scriptedModel(['Answer: ok']), tools: [folder], question: 'x' })) events++;

// taoloop/node (README "The library"): a model spec, search over a folder, the budget, the stream.
const served = await resolveModelSpec('openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-7b-instruct');
const nodeTools = [calculator, folder, createReadFileTool({ root: process.argv[2] ?? '.' })];
const nodeRun = await runAgent({
  model: scriptedModel(['Thought: look.\\nAction: search[Pro price]', 'Thought: ok.\\nAnswer: $20']),
  tools: nodeTools,
  question: 'How much is Brightgrid Pro per year for 7 developers?',
  maxSteps: 8,
  limits: { maxCostUsd: 0.05, prices },
});
if (nodeRun.status === 'answered') void [nodeRun.answer, nodeRun.usage, nodeRun.costUsd];
const observations: string[] = [];
for await (const event of streamNode({
  model: scriptedModel(['Thought: add.\\nAction: calculator[2 + 2]', 'Answer: 4']),
  tools: nodeTools,
  question: '...',
})) {
  if (event.type === 'tool-end') observations.push(event.observation);
}

// taoloop/node (README "Sessions"): a conversation kept as traces in a folder, read back with readTrace.
const runsDir = mkdtempSync(path.join(process.cwd(), 'runs-')); // inside the app, removed with it
const store = createFileStore(runsDir);
const chat = createSession({ model: scriptedModel(['Answer: $20', 'Answer: $1,680']), tools: [calculator], store });
await chat.send('Price of Pro per seat?');
const followUp = await chat.send('And for 7 seats a year?');
const traces = readdirSync(runsDir).map((file) => readTrace(path.join(runsDir, file)));

// taoloop/testing (README "Testing your agent"): recorded runs replayed as regression tests, cases k times.
const replays = [];
for (const file of await findTraceFiles([runsDir])) {
  const check = await checkTraceFile(file, { tools: [calculator] });
  if (!check.passed) throw new Error(formatTraceCheck(check, file));
  replays.push(check.result.answer);
}
const cases = parseCases('{"id": "four", "question": "2 + 2?", "expect": {"answer": "4"}}\\n', 'cases.jsonl');
const caseModel = scriptedModel(['Answer: 4', 'Answer: 5']);
const caseRun = await runCases({ cases, configs: [{ label: 'scripted', agent: { model: caseModel, tools: [] } }], repeats: 2, concurrency: 1 });
const summary = summarizeTrials(caseRun.trials, { k: 2 });

console.log(JSON.stringify({
  status: result.status,
  answer: result.answer,
  events,
  servedModel: served.id,
  nodeRun: nodeRun.status,
  observations,
  followUp: followUp.answer,
  conversation: (await chat.messages()).length,
  traces: traces.map((trace) => trace.result?.status),
  replays: replays.sort(),
  passK: summary.passK.map((p) => [p.k, p.value]),
  browserRun: (await browserRun()).answer,
  browserModelError: await browserModelError(),
}));
`;

/**
 * The README's `taoloop/browser` example (`browserModel`, its options type, and the core it re-exports),
 * type-checked twice: for Node, and as a browser project (DOM types, bundler resolution). What runs in
 * Node runs: a scripted run through `taoloop/browser`, and `browserModel` without `@wllama/wllama`
 * installed, which must reject saying how to install it.
 */
const BROWSER = `import {
  type BrowserModel,
  type BrowserModelOptions,
  type BrowserModelProgress,
  browserModel,
  calculator,
  createSearchTool,
  ModelConfigError,
  type RunResult,
  runAgent,
} from 'taoloop/browser';
import { scriptedModel } from 'taoloop/testing';

const progress: BrowserModelProgress[] = [];
export const options: BrowserModelOptions = {
  model: '/models/qwen2.5-1.5b-instruct-q4_k_m.gguf',
  wasmUrl: '/wllama.wasm',
  contextTokens: 2048,
  useCache: false,
  loadTimeoutMs: 60_000,
  onProgress: (loaded) => progress.push(loaded),
};

/** The README's example, as a page would run it. */
export async function pageExample(given: BrowserModelOptions = options): Promise<RunResult> {
  const model: BrowserModel = await browserModel(given);
  const search = await createSearchTool({ documents: { 'pricing.md': '# Pricing\\n...' } });
  const result = await runAgent({
    model,
    tools: [calculator, search],
    question: 'What does Pro cost for 7 developers?',
  });
  await model.dispose();
  return result;
}

/** The same loop through taoloop/browser, on a scripted model. */
export async function browserRun(): Promise<RunResult> {
  const search = await createSearchTool({
    documents: { 'pricing.md': 'Brightgrid Pro costs $20 per month per developer.' },
  });
  const model = scriptedModel(['Thought: price?\\nAction: search[Pro price]', 'Thought: ok.\\nAnswer: $20']);
  return runAgent({ model, tools: [calculator, search], question: 'Pro?' });
}

/** browserModel where @wllama/wllama is not installed: its error's name and message. */
export async function browserModelError(): Promise<string> {
  try {
    await pageExample();
    return 'no error';
  } catch (error) {
    return error instanceof ModelConfigError ? \`\${error.name}: \${error.message}\` : String(error);
  }
}
`;

let dir: string;
let tarball: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'taoloop-consumer-'));
  tarball = await packTarball(dir);
});
after(() => rm(dir, { recursive: true, force: true }));

/** What `attw --format json` prints (the parts checked here). */
interface AttwReport {
  analysis: {
    entrypoints: Record<
      string,
      {
        resolutions: Record<
          string,
          { resolution?: { fileName: string }; implementationResolution?: { fileName: string } }
        >;
      }
    >;
  };
  problems: Record<string, { kind: string; entrypoint?: string; resolutionKind?: string }[]>;
}

test('publint and @arethetypeswrong/cli (ESM-only profile) report nothing, for every entry point', async () => {
  assert.match(await sh(path.join(BIN, 'publint'), ['--strict'], ROOT), /All good/);

  // attw exits non-zero on a problem its profile does not ignore; the JSON also shows which entry points
  // it checked and where each resolved, so an entry point it skipped (or resolved elsewhere) fails here.
  const json = await sh(path.join(BIN, 'attw'), [tarball, '--profile', 'esm-only', '--format', 'json'], ROOT);
  const report = JSON.parse(json) as AttwReport;
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types: string; import: string }>;
  };
  const entries = Object.entries(manifest.exports).filter(
    (entry): entry is [string, { types: string; import: string }] => typeof entry[1] !== 'string',
  );
  assert.deepEqual(
    entries.map(([subpath]) => subpath),
    ['.', './node', './testing', './browser', './protocol', './restate'],
  );
  assert.deepEqual(Object.keys(report.analysis.entrypoints).sort(), Object.keys(manifest.exports).sort());
  for (const [subpath, { types, import: js }] of entries) {
    for (const kind of ['node16-esm', 'bundler']) {
      const resolved = report.analysis.entrypoints[subpath]?.resolutions[kind];
      const where = `${subpath} (${kind})`;
      assert.equal(resolved?.resolution?.fileName, `/node_modules/taoloop/${types.slice(2)}`, where);
      if (kind === 'node16-esm')
        assert.equal(
          resolved?.implementationResolution?.fileName,
          `/node_modules/taoloop/${js.slice(2)}`,
          where,
        );
    }
  }
  // The ESM-only profile ignores only CommonJS require() and node10 resolution (no exports map).
  const ignored = new Set(['node10', 'node16-cjs']);
  const problems = Object.values(report.problems)
    .flat()
    .filter((problem) => !(problem.resolutionKind && ignored.has(problem.resolutionKind)));
  assert.deepEqual(problems, []);
});

test('an empty project installs the tarball, type-checks the README examples strictly and runs them', async () => {
  const app = path.join(dir, 'app');
  await installApp(app, [tarball, 'zod@4.6.7', '@types/node@20.19.43']);
  const tsconfig = {
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      outDir: 'out',
      types: ['node'],
    },
    include: ['src'],
  };
  await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
  // A browser project: DOM types and bundler resolution. @types/node stays: the AI SDK's own declarations
  // (which taoloop's name) refer to Buffer and node:http, so a project without it fails in node_modules/ai.
  const browserTsconfig = {
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      module: 'esnext',
      moduleResolution: 'bundler',
      target: 'es2022',
      lib: ['es2022', 'dom', 'dom.iterable'],
      types: ['node'],
      noEmit: true,
    },
    files: ['src/browser.ts'],
  };
  await writeFile(path.join(app, 'tsconfig.browser.json'), JSON.stringify(browserTsconfig));
  await writeFile(path.join(app, 'src', 'app.ts'), APP);
  await writeFile(path.join(app, 'src', 'browser.ts'), BROWSER);
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await sh(process.execPath, [tsc, '-p', '.'], app);
  await sh(process.execPath, [tsc, '-p', 'tsconfig.browser.json'], app);
  const output = await sh(process.execPath, ['out/app.js', path.join(ROOT, 'examples', 'brightgrid')], app);
  const outcome = JSON.parse(output.trim().split('\n').pop() ?? '') as Record<string, unknown>;
  assert.equal(outcome.status, 'answered');
  assert.equal(outcome.answer, '$1,680 per year');
  assert.ok((outcome.events as number) >= 2, 'streamAgent yielded its events');
  // taoloop/node
  assert.equal(outcome.servedModel, 'openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-7b-instruct');
  assert.equal(outcome.nodeRun, 'answered');
  assert.deepEqual(outcome.observations, ['4']);
  assert.equal(outcome.followUp, '$1,680');
  assert.equal(outcome.conversation, 4);
  assert.deepEqual(outcome.traces, ['answered', 'answered']);
  assert.deepEqual(outcome.replays, ['$1,680', '$20'], 'each recorded run replays as recorded');
  assert.deepEqual(outcome.passK, [
    [1, 0.5],
    [2, 0],
  ]);
  // taoloop/browser in Node: the core runs; browserModel says what to install.
  assert.equal(outcome.browserRun, '$20');
  assert.match(
    outcome.browserModelError as string,
    /^ModelConfigError: .*@wllama\/wllama.*npm install @wllama\/wllama@3\.8\.1/,
  );

  // require(): works where Node can require ES modules (20.19+), else Node's error says to use import().
  const required = await sh(
    process.execPath,
    ['-e', "try { console.log(typeof require('taoloop').runAgent) } catch (e) { console.log(e.message) }"],
    app,
  );
  assert.match(required, /^function|ES Module|import\(\)/);
});
