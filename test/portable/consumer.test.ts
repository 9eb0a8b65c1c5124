/**
 * The package as a user gets it: packed (`npm pack`, of the build `npm test` made), checked by publint and
 * @arethetypeswrong/cli (ESM-only profile), installed from the tarball into an empty project (its
 * dependencies from the registry or npm's cache), then a file using the README's examples is type-checked
 * with `skipLibCheck: false` and run, and `require('taoloop')` works or says how to import.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertBuilt, BIN, ROOT } from './helpers.js';

function sh(file: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

const APP = `import { calculator, createSearchTool, defineTool, runAgent, streamAgent } from 'taoloop';
import type { ApprovalDecision, ApprovalRequest, Journal, PriceTable, RunResult } from 'taoloop';
import { createSearchTool as searchFolder, chooseModel, otlpTracer } from 'taoloop/node';
import { scriptedModel } from 'taoloop/testing';
import { z } from 'zod';

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
const prices: PriceTable = {};
void [chooseModel, otlpTracer, prices];

const docs = { 'pricing.md': 'Brightgrid Pro costs $20 per month per developer.' };
const model = scriptedModel([
  'Thought: price?\\nAction: search[Pro price]',
  'Thought: times 7 for a year.\\nAction: calculator[20 * 12 * 7]',
  'Thought: done.\\nAction: send_email[{"to": "a@example.com", "body": "1680"}]',
  'Thought: sent.\\nAnswer: $1,680 per year',
]);
const tools = [calculator, await createSearchTool({ documents: docs }), sendEmail];
const result: RunResult = await runAgent({ model, tools, question: 'Pro for 7, per year?', approve, journal, maxSteps: 8 });
const folder = await searchFolder({ docsDir: process.argv[2] ?? '.' });
let events = 0;
for await (const _event of streamAgent({ model: scriptedModel(['Answer: ok']), tools: [folder], question: 'x' })) events++;
console.log(JSON.stringify({ status: result.status, answer: result.answer, events }));
`;

let dir: string;
let tarball: string;
before(async () => {
  assertBuilt();
  dir = await mkdtemp(path.join(tmpdir(), 'taoloop-consumer-'));
  tarball = path.join(
    dir,
    (await sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], ROOT)).trim(),
  );
});
after(() => rm(dir, { recursive: true, force: true }));

test('publint and @arethetypeswrong/cli (ESM-only profile) report nothing', async () => {
  assert.match(await sh(path.join(BIN, 'publint'), ['--strict'], ROOT), /All good/);
  await sh(path.join(BIN, 'attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], ROOT);
});

test('an empty project installs the tarball, type-checks the README examples strictly and runs them', async () => {
  const app = path.join(dir, 'app');
  await mkdir(path.join(app, 'src'), { recursive: true });
  await writeFile(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  await sh(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefer-offline',
      tarball,
      'zod@4.6.7',
      '@types/node@20.19.43',
    ],
    app,
  );
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
  await writeFile(path.join(app, 'src', 'app.ts'), APP);
  await sh(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], app);
  const output = await sh(process.execPath, ['out/app.js', path.join(ROOT, 'examples', 'brightgrid')], app);
  const outcome = JSON.parse(output.trim().split('\n').pop() ?? '') as {
    status: string;
    answer: string;
    events: number;
  };
  assert.equal(outcome.status, 'answered');
  assert.equal(outcome.answer, '$1,680 per year');
  assert.ok(outcome.events >= 2, 'streamAgent yielded its events');

  // require(): works where Node can require ES modules (20.19+), else Node's error says to use import().
  const required = await sh(
    process.execPath,
    ['-e', "try { console.log(typeof require('taoloop').runAgent) } catch (e) { console.log(e.message) }"],
    app,
  );
  assert.match(required, /^function|ES Module|import\(\)/);
});
