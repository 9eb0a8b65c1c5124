/**
 * loop-overhead: what the agent loop itself costs per step, with the model and the tool taking no time (a
 * scripted model that answers at once, a no-op tool), for episodes of 8, 32 and 64 steps (7, 31 and 63
 * tool calls, then the answer): taoloop (`runAgent` over its AI SDK adapter, text mode and native mode)
 * against the current agents of its peers at their best: the AI SDK's `ToolLoopAgent` on the same AI SDK
 * mock model, and LangChain's `createAgent`; and taoloop on a `Model` of its own (no AI SDK), for the
 * ceiling of issue 17. And the heap each run holds while many runs are in flight at once. Report on
 * stderr, figures on stdout. See bench/README.md for what each measurement includes.
 *
 * Timing: each contender is built once per episode length and warmed up; then rounds, each timing one
 * batch of sequential episodes of every contender at every length that has rounds left, in an order that
 * rotates per round, so that all share the machine's load alike. A batch is as many episodes as take
 * about 30 ms (at least one).
 * Time is the process's CPU time (user + system, `process.cpuUsage`), which on a shared, noisy machine
 * varies far less than wall time (printed too); the figure is the median over rounds of CPU time per step
 * (batch time / episodes / steps). Every timed episode is checked: the expected answer, and `steps - 1`
 * tool calls per episode.
 *
 * Memory: one child process per contender (`memory.ts`, run with `--expose-gc`), all at once.
 *
 * Run: `npm run bench -- loop-overhead` (or `node --import tsx bench/loop-overhead/index.ts`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { benchDir } from '../lib/peer.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';
import {
  bundleTaoloop,
  CONTENDER_KEYS,
  CONTENDERS,
  type Contender,
  type ContenderKey,
  ensureLangChain,
} from './frameworks.js';
import type { MemoryResult } from './memory.js';
import { MEMORY_STEPS, STEP_COUNTS, type StepCount, TOOL_OUTPUT } from './script.js';

const COMMAND = 'npm run bench -- loop-overhead';
/** The ceiling of issue 17: 0.1% of a 200 ms model call. */
const CEILING_US = 200;
/**
 * Rounds of timing per episode length (fewer for the long episodes, whose batches take longer); each round
 * times one batch of every contender at every length that has rounds left.
 */
const ROUNDS: Record<StepCount, number> = { 8: 25, 32: 17, 64: 11 };
/** CPU time a batch aims at, ms: long against the clock's resolution and scheduling noise. */
const BATCH_TARGET_MS = 30;
/** Warm-up per contender and length: at least this many episodes and this much CPU time. */
const WARMUP_EPISODES = 2;
const WARMUP_MS = 150;
/** The contenders of the memory test (the others are taoloop on its own model, for the ceiling). */
const MEMORY_KEYS: readonly ContenderKey[] = ['taoloop-text', 'taoloop-native', 'ai-sdk', 'langchain'];
/** Runs in flight at once in the memory test. */
const MEMORY_RUNS = 300;

const log = (line = '') => process.stderr.write(`${line}\n`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Timed {
  key: ContenderKey;
  steps: StepCount;
  contender: Contender;
  /** Tool calls since the last check. */
  calls: { count: number };
  episodesPerBatch: number;
  /** CPU microseconds per step, one entry per round. */
  usPerStep: number[];
  /** Wall-clock microseconds per step, one entry per round. */
  wallUsPerStep: number[];
  episodes: number;
}

/**
 * Runs `episodes` sequential episodes; returns the CPU and wall time in µs. Throws when any went off script
 * (a wrong answer, or not exactly `actions` tool calls per episode).
 */
async function batch(timed: Timed, episodes: number): Promise<{ cpuUs: number; wallUs: number }> {
  const { contender, calls } = timed;
  calls.count = 0;
  let wrong = 0;
  let lastWrong: string | undefined;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < episodes; i++) {
    const answer = await contender.run();
    if (answer !== contender.expected) {
      wrong++;
      lastWrong = answer;
    }
  }
  const wallUs = (performance.now() - started) * 1000;
  const cpu = process.cpuUsage(cpuStart);
  contender.forget();
  if (wrong > 0 || calls.count !== episodes * contender.actions) {
    throw new Error(
      `${contender.name}, ${timed.steps} steps: ${wrong} of ${episodes} episodes went off script ` +
        `(${calls.count} tool calls, expected ${episodes * contender.actions}; last wrong answer: ` +
        `${JSON.stringify(lastWrong)})`,
    );
  }
  return { cpuUs: cpu.user + cpu.system, wallUs };
}

async function prepare(key: ContenderKey, steps: StepCount): Promise<Timed> {
  const calls = { count: 0 };
  const contender = await CONTENDERS[key](
    () => {
      calls.count++;
      return TOOL_OUTPUT;
    },
    { steps, kind: 'sequential' },
  );
  const timed: Timed = {
    key,
    steps,
    contender,
    calls,
    episodesPerBatch: 1,
    usPerStep: [],
    wallUsPerStep: [],
    episodes: 0,
  };
  let cpuUs = 0;
  let episodes = 0;
  while (episodes < WARMUP_EPISODES || cpuUs < WARMUP_MS * 1000) {
    cpuUs += (await batch(timed, 1)).cpuUs;
    episodes++;
  }
  return timed;
}

/** Sets a batch's episodes from the median of 3 more episodes, timed once everything is warm. */
async function size(timed: Timed): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) times.push((await batch(timed, 1)).cpuUs);
  timed.episodesPerBatch = Math.max(1, Math.round((BATCH_TARGET_MS * 1000) / median(times)));
}

function runMemoryChild(key: ContenderKey): Promise<MemoryResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        join(benchDir, 'loop-overhead', 'memory.ts'),
        key,
        String(MEMORY_RUNS),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`memory test for ${key} exited with code ${code}`));
      else resolve(JSON.parse(stdout.trim()) as MemoryResult);
    });
  });
}

const ratio3 = (value: number, baseline: number) => {
  const r = ratioOf(value, baseline);
  return r === null ? null : round(r, 3);
};

async function main() {
  const started = performance.now();
  ensureLangChain(log);
  if (!(await bundleTaoloop())) log('esbuild not found: measuring taoloop from src through tsx (slower)');
  log(
    `Episodes of ${STEP_COUNTS.join(', ')} steps (a no-op tool called steps - 1 times, then the answer); ` +
      'model and tool answer at once.',
  );
  log('Building and warming up the agents ...');
  const all: Timed[] = [];
  for (const steps of STEP_COUNTS) for (const key of CONTENDER_KEYS) all.push(await prepare(key, steps));
  for (const timed of all) await size(timed);
  const warmedS = (performance.now() - started) / 1000;
  const maxRounds = Math.max(...Object.values(ROUNDS));
  for (let r = 0; r < maxRounds; r++) {
    const active = all.filter((t) => r < ROUNDS[t.steps]);
    for (let k = 0; k < active.length; k++) {
      const timed = active[(k + r) % active.length]!;
      const { cpuUs, wallUs } = await batch(timed, timed.episodesPerBatch);
      const steps = timed.episodesPerBatch * timed.steps;
      timed.episodes += timed.episodesPerBatch;
      timed.usPerStep.push(cpuUs / steps);
      timed.wallUsPerStep.push(wallUs / steps);
    }
  }
  const timedS = (performance.now() - started) / 1000 - warmedS;
  log(
    `\nCPU time per step, µs: median of the rounds (${STEP_COUNTS.map((s) => `${ROUNDS[s]} at ${s} steps`).join(', ')}), ` +
      `(min-max), then wall time's median (warm-up ${round(warmedS)} s, timing ${round(timedS)} s):`,
  );
  const at = (key: ContenderKey, steps: number) => all.find((t) => t.key === key && t.steps === steps)!;
  const us = (key: ContenderKey, steps: number) => round(median(at(key, steps).usPerStep));
  const width = Math.max(...all.map((t) => t.contender.name.length));
  for (const steps of STEP_COUNTS) {
    log(`  ${steps} steps:`);
    for (const key of CONTENDER_KEYS) {
      const t = at(key, steps);
      log(
        `    ${t.contender.name.padEnd(width)}  ${String(us(key, steps)).padStart(7)} ` +
          `(${round(Math.min(...t.usPerStep))}-${round(Math.max(...t.usPerStep))})  wall ` +
          `${round(median(t.wallUsPerStep))}  [${t.episodesPerBatch}/batch, ${t.episodes} episodes, ` +
          `${t.episodes * t.contender.actions} tool calls, all answered]`,
      );
    }
  }
  log(`  taoloop from: ${at('taoloop-text', 8).contender.from}`);
  log('  growth, µs/step at 64 steps / at 8 steps:');
  for (const key of CONTENDER_KEYS) {
    log(`    ${at(key, 8).contender.name.padEnd(width)}  ${round(us(key, 64) / us(key, 8), 2)}x`);
  }

  // Speed against the peers, at every length.
  const versus = (mode: 'text' | 'native', peer: ContenderKey) => {
    const ours = `taoloop-${mode}` as const;
    for (const steps of STEP_COUNTS) {
      const value = us(ours, steps);
      const baselineValue = us(peer, steps);
      const ratio = ratio3(value, baselineValue);
      const goal = peer === 'ai-sdk';
      emitFigure({
        figure: `loop overhead per step, ${mode} mode, ${steps} steps (taoloop)`,
        value,
        unit: 'µs/step',
        against: 'peer',
        baseline: `${at(peer, steps).contender.name}, native tool calls, ${steps} steps`,
        baselineValue,
        ratio,
        command: COMMAND,
        ...(goal && {
          goal: '<= 1.0x ToolLoopAgent on the same AI SDK model',
          met: ratio !== null && ratio <= 1,
        }),
      });
    }
  };
  versus('text', 'ai-sdk');
  versus('native', 'ai-sdk');
  versus('native', 'langchain');
  versus('text', 'langchain');
  // Growth with the run: no quadratic term.
  for (const mode of ['text', 'native'] as const) {
    const ours = `taoloop-${mode}` as const;
    const value = us(ours, 64);
    const baselineValue = us(ours, 8);
    const ratio = ratio3(value, baselineValue);
    emitFigure({
      figure: `loop overhead per step, ${mode} mode, 64 steps (taoloop)`,
      value,
      unit: 'µs/step',
      against: 'self',
      baseline: `taoloop ${mode} mode at 8 steps, same run`,
      baselineValue,
      ratio,
      command: COMMAND,
      goal: '<= 1.5x its own cost at 8 steps (no quadratic term)',
      met: ratio !== null && ratio <= 1.5,
    });
  }
  // The absolute ceiling of issue 17: taoloop's own code (on a taoloop Model, without the AI SDK), streamed
  // and not, at the longest episode.
  const ceilings = [
    ['taoloop-text-own', 'text mode'],
    ['taoloop-native-own', 'native mode'],
    ['taoloop-text-own-streamed', 'text mode, streamed'],
  ] as const;
  for (const [key, mode] of ceilings) {
    const value = us(key, 64);
    emitFigure({
      figure: `loop overhead per step, ${mode}, own Model (no AI SDK), 64 steps (taoloop)`,
      value,
      unit: 'µs/step',
      against: 'goal',
      baseline: 'ceiling of issue 17 (0.1% of a 200 ms model call)',
      baselineValue: CEILING_US,
      ratio: ratio3(value, CEILING_US),
      command: COMMAND,
      goal: `<= ${CEILING_US} µs/step`,
      met: value <= CEILING_US,
    });
  }

  log(
    `\nMemory: ${MEMORY_RUNS} runs of the ${MEMORY_STEPS}-step episode in flight at once, each held in its ` +
      '4th tool call (one child process per contender) ...',
  );
  const memory = await Promise.all(MEMORY_KEYS.map(runMemoryChild));
  for (const m of memory) {
    log(
      `  ${m.name.padEnd(width)}  ${String(round(m.bytesPerRun / 1024)).padStart(7)} KB per run  ` +
        `(heap ${round(m.heapBeforeBytes / 2 ** 20)} MB before, ${round(m.heapInFlightBytes / 2 ** 20)} MB ` +
        `in flight; all ${m.runs} held after ${Math.round(m.startMs)} ms; all answered after ` +
        `${MEMORY_STEPS - 1} tool calls each)`,
    );
  }
  const kb = (m: MemoryResult) => round(m.bytesPerRun / 1024);
  const peers = memory.filter((m) => !m.key.startsWith('taoloop'));
  const lightest = peers.reduce((a, b) => (b.bytesPerRun < a.bytesPerRun ? b : a));
  for (const ours of memory.filter((m) => m.key.startsWith('taoloop'))) {
    const value = kb(ours);
    const baselineValue = kb(lightest);
    const ratio = ratio3(value, baselineValue);
    emitFigure({
      figure: `memory per run, ${MEMORY_RUNS} runs in flight, ${ours.key.slice('taoloop-'.length)} mode (taoloop)`,
      value,
      unit: 'KB/run',
      against: 'peer',
      baseline: `${lightest.name} (the lightest peer)`,
      baselineValue,
      ratio,
      command: COMMAND,
      goal: '<= 1.0x the lightest peer',
      met: ratio !== null && ratio <= 1,
    });
  }
  log(`\nloop-overhead finished in ${round((performance.now() - started) / 1000)} s`);
}

await main();
