/**
 * cli-start: cold start of `taoloop --help` (the built CLI, `bin/taoloop.js` loading `dist/`) against
 * `node -e ""`, the floor any Node CLI pays. Each is spawned 15 times, interleaved (so drift in machine
 * load hits both alike), after 2 warm-up runs each that are not counted; the figure is the median wall
 * time from spawn to exit. Report on stderr, figures on stdout.
 *
 * Needs a build (`npm run build`); it does not build by itself so that it measures what was built.
 *
 * Run: `npm run bench -- cli-start` (or `node --import tsx bench/cli-start/index.ts`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { emitFigure, ratioOf } from '../lib/protocol.js';

const COMMAND = 'npm run bench -- cli-start';
const RUNS = 15;
const WARMUP = 2;
const bin = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));
const dist = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const log = (line = '') => process.stderr.write(`${line}\n`);

/** Wall time of one spawn, in milliseconds; throws when the command fails. */
function time(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr.toString()}`);
  return ms;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

if (!existsSync(dist)) {
  log('cli-start: dist/cli.js is missing; run `npm run build` first.');
  process.exit(1);
}
const help = [bin, '--help'];
const empty = ['-e', ''];
for (let i = 0; i < WARMUP; i += 1) {
  time(help);
  time(empty);
}
const taoloop: number[] = [];
const node: number[] = [];
for (let i = 0; i < RUNS; i += 1) {
  taoloop.push(time(help));
  node.push(time(empty));
}
const ours = median(taoloop);
const floor = median(node);
log(`cli-start: median of ${RUNS} interleaved spawns each (after ${WARMUP} warm-ups)`);
log(
  `  taoloop --help  ${round(ours)} ms   (min ${round(Math.min(...taoloop))}, max ${round(Math.max(...taoloop))})`,
);
log(
  `  node -e ""      ${round(floor)} ms   (min ${round(Math.min(...node))}, max ${round(Math.max(...node))})`,
);
log(`  ratio           ${round(ours / floor, 2)}x; taoloop's own share ${round(ours - floor)} ms`);
emitFigure({
  figure: 'cold start, taoloop --help (median wall time)',
  value: round(ours),
  unit: 'ms',
  against: 'floor',
  baseline: `node -e "" (Node ${process.versions.node})`,
  baselineValue: round(floor),
  ratio: ratioOf(round(ours), round(floor)),
  command: COMMAND,
});
