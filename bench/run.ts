/**
 * Runs the benchmarks and prints one table of their figures. A benchmark is a folder `bench/<name>/` with an
 * `index.ts`; each runs in its own process (`node --import tsx bench/<name>/index.ts`, from the repository
 * root) with a time limit, and reports figures as JSON lines on stdout (`lib/protocol.ts`). Installs
 * bench's own dependencies (the peer libraries measured as baselines) first when they are missing.
 *
 * Usage: `npm run bench` (all) or `npm run bench -- <name> [<name> ...]`; `--limit <seconds>` (or
 * `BENCH_LIMIT_S`) sets the limit per script (default 120 s: a busy 2-core machine needs more than an idle one;
 * a script listed in `SCRIPT_LIMITS_S` gets its own default instead).
 *
 * A script stopped at its limit takes its whole process tree with it: its process group, and (on Linux) every
 * process that carries this run's mark in its environment, so a server the script started in a session of
 * its own (`restate-server`), or one left behind when its parent died, is stopped too.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, parseFigure } from './lib/protocol.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(benchDir, '..');
/** The environment variable that marks every process a bench script starts (inherited by its children). */
const MARK = 'TAOLOOP_BENCH_RUN';

/**
 * Default limits, in seconds, of the scripts that need more than 120 s. `search` builds MiniSearch's index of
 * 1,000,000 passages for its 1M figure (over a minute alone), then taoloop's: about 3 minutes in all.
 */
const SCRIPT_LIMITS_S: Readonly<Record<string, number>> = { search: 480 };

/**
 * Wall-clock limit for every bench script, when given: `--limit <s>`, else `BENCH_LIMIT_S`; else undefined,
 * and each script gets its default (`SCRIPT_LIMITS_S`, else 120 s).
 */
function timeLimitMs(args: string[]): number | undefined {
  const at = args.indexOf('--limit');
  const given = at >= 0 ? args.splice(at, 2)[1] : process.env.BENCH_LIMIT_S;
  if (given === undefined) return undefined;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    process.stderr.write(`bench: --limit / BENCH_LIMIT_S must be a number of seconds, not "${given}"\n`);
    process.exit(2);
  }
  return seconds * 1000;
}
const ARGS = process.argv.slice(2);
const TIME_LIMIT_MS = timeLimitMs(ARGS);
const limitMsOf = (name: string) => TIME_LIMIT_MS ?? (SCRIPT_LIMITS_S[name] ?? 120) * 1000;

interface Outcome {
  name: string;
  figures: Figure[];
  /** Why the script failed, when it did. */
  failure?: string;
  durationMs: number;
}

/** Folders of `bench/` that hold an `index.ts`, sorted. */
function discover(): string[] {
  return readdirSync(benchDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .filter((name) => existsSync(join(benchDir, name, 'index.ts')))
    .sort();
}

/**
 * `npm ci --prefix <dir>` for bench/ and each bench folder with a lockfile of its own (peers that cannot
 * share bench/'s node_modules), when its node_modules is missing or older than its package-lock.json.
 */
function ensureDependencies(names: readonly string[]): void {
  for (const dir of [benchDir, ...names.map((name) => join(benchDir, name))]) {
    const lock = join(dir, 'package-lock.json');
    if (!existsSync(lock)) continue;
    const installed = join(dir, 'node_modules', '.package-lock.json');
    if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) continue;
    const where = dir === benchDir ? 'bench' : `bench/${dir.slice(benchDir.length + 1)}`;
    process.stderr.write(`bench: installing dependencies (npm ci --prefix ${where})\n`);
    const result = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
      cwd: repoRoot,
      stdio: ['ignore', 2, 2],
    });
    if (result.status !== 0) {
      throw new Error(
        `npm ci --prefix ${where} failed (${result.error?.message ?? `exit code ${result.status}`})`,
      );
    }
  }
}

const running = new Set<ChildProcess>();

/** Kills the child's whole process group: bench scripts may start servers or workers of their own. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Kills every process (but this one) whose environment holds `MARK=<mark…>` (a prefix: this run's pid ends
 * every script's processes at once): what a script started, in any
 * process group or session, and whatever was left running after it ended. Linux only (`/proc`); elsewhere
 * the group kill is all there is. Returns how many were killed.
 */
function killMarked(mark: string): number {
  if (!existsSync('/proc/self/environ')) return 0;
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!environ.split('\0').some((v) => v.startsWith(`${MARK}=${mark}`))) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      killed += 1;
    } catch {}
  }
  return killed;
}

function runScript(name: string): Promise<Outcome> {
  const started = performance.now();
  const mark = `${process.pid}-${name}-${Date.now()}`;
  const child = spawn(process.execPath, ['--import', 'tsx', join('bench', name, 'index.ts')], {
    cwd: repoRoot,
    env: { ...process.env, [MARK]: mark },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  running.add(child);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, limitMsOf(name));
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  return new Promise((resolve) => {
    const finish = (failure: string | undefined) => {
      clearTimeout(timer);
      running.delete(child);
      const left = killMarked(mark);
      if (left > 0) process.stderr.write(`bench ${name}: stopped ${left} process(es) it left running\n`);
      const figures: Figure[] = [];
      for (const line of stdout.split('\n')) {
        if (line.trim() === '') continue;
        const figure = parseFigure(line);
        if (figure) figures.push(figure);
        else process.stderr.write(`bench ${name}: ignored stdout line (not a figure): ${line}\n`);
      }
      const outcome: Outcome = { name, figures, durationMs: performance.now() - started };
      const problem = failure ?? (figures.length === 0 ? 'printed no figures' : undefined);
      if (problem !== undefined) outcome.failure = problem;
      resolve(outcome);
    };
    child.on('error', (error) => finish(`could not start: ${error.message}`));
    child.on('close', (code, signal) => {
      if (timedOut) finish(`timed out after ${limitMsOf(name) / 1000} s`);
      else if (code !== 0) finish(`exited with ${signal ?? `code ${code}`}`);
      else finish(undefined);
    });
  });
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
}

function withUnit(value: number, unit: string): string {
  return unit === '%' ? `${formatNumber(value)}%` : `${formatNumber(value)} ${unit}`;
}

function renderTable(figures: readonly Figure[]): string {
  const withGoals = figures.some((f) => f.goal !== undefined);
  const header = ['figure', 'value', 'baseline', 'ratio', 'command to reproduce'];
  if (withGoals) header.push('goal');
  const rows = figures.map((f) => {
    const row = [
      f.figure,
      withUnit(f.value, f.unit),
      `${f.against === 'peer' ? '' : `(${f.against === 'self' ? 'self-baseline' : f.against}) `}${f.baseline}: ${withUnit(f.baselineValue, f.unit)}`,
      f.ratio === null ? 'n/a (baseline 0)' : `${formatNumber(f.ratio)}x`,
      `\`${f.command}\``,
    ];
    if (withGoals) {
      const mark = f.met === undefined ? '' : f.met ? ' (met)' : ' (NOT met)';
      row.push(f.goal === undefined ? '' : `${f.goal}${mark}`);
    }
    return row;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<number> {
  const available = discover();
  const wanted = ARGS.map((arg) => arg.replace(/^bench\//, '').replace(/\/(index\.ts)?$/, ''));
  const unknown = wanted.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown benchmark ${unknown.join(', ')}; available: ${available.join(', ')}\n`,
    );
    return 2;
  }
  const names = wanted.length > 0 ? wanted : available;
  ensureDependencies(names);
  const outcomes: Outcome[] = [];
  for (const name of names) {
    process.stderr.write(`\n=== bench ${name} ===\n`);
    const outcome = await runScript(name);
    process.stderr.write(`=== bench ${name}: ${(outcome.durationMs / 1000).toFixed(1)} s ===\n`);
    outcomes.push(outcome);
  }
  const figures = outcomes.flatMap((o) => o.figures);
  process.stdout.write(`\n${figures.length > 0 ? renderTable(figures) : '(no figures)'}\n`);
  const failed = outcomes.filter((o) => o.failure !== undefined);
  for (const o of failed) process.stdout.write(`\nFAILED bench ${o.name}: ${o.failure}\n`);
  return failed.length > 0 ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    killMarked(`${process.pid}-`);
    process.exit(130);
  });
}

process.exitCode = await main();
