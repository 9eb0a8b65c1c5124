/**
 * Shared pieces of the runtime tests: the Brightgrid documents as strings, the check of a run's outcome,
 * a bundle of the built core for runtimes that take one file, and running a runtime's binary.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { TURNS } from './fixtures/brightgrid-run.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RUN_SCRIPT = fileURLToPath(new URL('./fixtures/brightgrid-run.mjs', import.meta.url));
export const BIN = path.join(ROOT, 'node_modules', '.bin');

/** examples/brightgrid's documents as a record of text by file name. */
export async function brightgridDocuments(): Promise<Record<string, string>> {
  const dir = path.join(ROOT, 'examples', 'brightgrid');
  const names = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await readFile(path.join(dir, name), 'utf8')])),
  );
}

/** What `brightgridRun` returns. */
export interface RunOutcome {
  status: string;
  answer?: string;
  error?: string;
  observations: string[];
  modelId: string;
}

/** The run reached the answer through a real search and a real calculation. */
export function assertAnswered(outcome: RunOutcome): void {
  assert.equal(outcome.status, 'answered', `run ended with ${outcome.status}: ${outcome.error ?? ''}`);
  assert.equal(outcome.answer, '$1,680 per year');
  assert.equal(outcome.observations.length, 2, JSON.stringify(outcome.observations));
  assert.match(outcome.observations[0] ?? '', /Brightgrid Pro costs \$20 per month per developer/);
  assert.equal(outcome.observations[1], '1680');
}

/** The built dist/ must be there (`npm test` builds it first). */
export function assertBuilt(): void {
  assert.ok(existsSync(path.join(ROOT, 'dist', 'index.js')), 'dist/ is missing: run `npm run build` first');
}

/** Runs a program; resolves with its stdout, rejects with its stdout and stderr. @default timeoutMs 300000 */
export function sh(file: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
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

/** Packs the package as `npm publish` would (`npm pack`, of the build in dist/) into `dir`: the tarball's path. */
export async function packTarball(dir: string): Promise<string> {
  assertBuilt();
  const name = await sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], ROOT);
  return path.join(dir, name.trim());
}

/**
 * An empty ES module project in `app` (created) with `packages` installed as a user would (`npm install`,
 * from the registry or npm's cache; no install scripts): the tarball from {@link packTarball} and what the
 * test names beside it (`zod@4.6.7`).
 */
export async function installApp(app: string, packages: string[]): Promise<void> {
  await mkdir(path.join(app, 'src'), { recursive: true });
  await writeFile(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  await sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', ...packages],
    app,
  );
}

/**
 * One ES module file with the built core, `taoloop/testing`, the run script and the documents, exporting
 * `run(baseURL?)`: for runtimes that take a single script (workerd, the edge runtime, a web page).
 * `format: 'iife'` gives a script that sets `globalThis.brightgrid` instead (the edge runtime).
 */
export async function bundleRun(format: 'esm' | 'iife' = 'esm'): Promise<string> {
  assertBuilt();
  const documents = await brightgridDocuments();
  const entry = [
    "import * as taoloop from 'taoloop';",
    "import * as testing from 'taoloop/testing';",
    `import { brightgridRun } from ${JSON.stringify(RUN_SCRIPT)};`,
    `const documents = ${JSON.stringify(documents)};`,
    'export function run(baseURL) { return brightgridRun({ taoloop, testing, documents, baseURL }); }',
  ].join('\n');
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    platform: 'browser',
    format,
    ...(format === 'iife' && { globalName: 'brightgrid' }),
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** A local OpenAI-compatible server answering the run's turns, in order, for each run it serves. */
export function startBrightgridServer(): Promise<FakeOpenAI> {
  return startFakeOpenAI({ replies: (_request, callIndex) => TURNS[callIndex % TURNS.length] ?? '' });
}

/** Runs a binary with a time limit; resolves with its stdout, rejects with its stderr. */
export function runBinary(
  file: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? ROOT,
        timeout: options.timeoutMs ?? 60_000,
        env: options.env ?? process.env,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/** The last line of a program's output that parses as JSON (the run's outcome). */
export function lastJsonLine(stdout: string): RunOutcome {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line) as RunOutcome;
    } catch {
      // not the outcome line
    }
  }
  throw new Error(`no JSON outcome in the output:\n${stdout}`);
}

export type { FakeOpenAI };
