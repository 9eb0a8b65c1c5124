/**
 * install: what a user pays to install and import taoloop. Packs the package as built (`npm pack
 * --ignore-scripts`, so it measures what was built), installs the tarball with `npm install` into an empty
 * temporary project (dependencies from the npm registry, or npm's cache), then reports
 *
 * - the size of that project's `node_modules` (apparent bytes of every file, in MB of 10^6 bytes), against
 *   the goal of 40 MB;
 * - the import time of the core (`import('taoloop')`): the median wall time of `node -e "import('taoloop')"`
 *   minus that of `node -e ""` (the floor any Node process pays), spawned 15 times each, interleaved, after
 *   2 warm-ups each; goal at most 40 ms. `taoloop/node` is printed beside it for information.
 *
 * Needs a build (`npm run build`). Run: `npm run bench -- install` (or `node --import tsx bench/install/index.ts`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitFigure, ratioOf } from '../lib/protocol.js';

const COMMAND = 'npm run bench -- install';
const RUNS = 15;
const WARMUP = 2;
const SIZE_GOAL_MB = 40;
const IMPORT_GOAL_MS = 40;
const root = fileURLToPath(new URL('../..', import.meta.url));
const log = (line = '') => process.stderr.write(`${line}\n`);

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

/** Apparent size of every file under `dir`, symlinks counted as links. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(full);
    else total += lstatSync(full).size;
  }
  return total;
}

function time(args: string[], cwd: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr.toString()}`);
  return ms;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

if (!existsSync(path.join(root, 'dist', 'index.js'))) {
  log('install: dist/ is missing; run `npm run build` first.');
  process.exit(1);
}
const dir = mkdtempSync(path.join(tmpdir(), 'taoloop-bench-install-'));
try {
  const tarball = path.join(
    dir,
    run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], root).trim(),
  );
  const app = path.join(dir, 'app');
  run('mkdir', ['-p', app], dir);
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  log(`install: npm install ${path.basename(tarball)} into an empty project...`);
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', tarball], app);
  const megabytes = sizeOf(path.join(app, 'node_modules')) / 1e6;

  const empty: number[] = [];
  const core: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const e = time(['-e', ''], app);
    const c = time(['-e', "await import('taoloop')", '--input-type=module'], app);
    const n = time(['-e', "await import('taoloop/node')", '--input-type=module'], app);
    if (i >= WARMUP) {
      empty.push(e);
      core.push(c);
      node.push(n);
    }
  }
  const floor = median(empty);
  const coreMs = median(core) - floor;
  const nodeMs = median(node) - floor;
  log(`node_modules after npm install of the tarball: ${round(megabytes)} MB (goal <= ${SIZE_GOAL_MB} MB)`);
  log(
    `node -e "": ${round(floor)} ms; import('taoloop'): +${round(coreMs)} ms (goal <= ${IMPORT_GOAL_MS} ms); import('taoloop/node'): +${round(nodeMs)} ms`,
  );
  emitFigure({
    figure: 'node_modules of a fresh npm install of the taoloop tarball (MB)',
    value: round(megabytes),
    unit: 'MB',
    against: 'goal',
    baseline: 'goal',
    baselineValue: SIZE_GOAL_MB,
    ratio: ratioOf(megabytes, SIZE_GOAL_MB),
    command: COMMAND,
    goal: `<= ${SIZE_GOAL_MB} MB`,
    met: megabytes <= SIZE_GOAL_MB,
  });
  emitFigure({
    figure: 'import(\'taoloop\') time above node -e "" (median of 15)',
    value: round(coreMs),
    unit: 'ms',
    against: 'floor',
    baseline: 'node -e "" (same run)',
    baselineValue: round(floor),
    ratio: ratioOf(floor + coreMs, floor),
    command: COMMAND,
    goal: `<= ${IMPORT_GOAL_MS} ms above node -e ""`,
    met: coreMs <= IMPORT_GOAL_MS,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
