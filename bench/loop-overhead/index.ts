/**
 * loop-overhead: what the agent loop itself costs per step, with the model and the tool taking no time (a
 * scripted model that answers at once, a no-op tool), for one 8-step episode (7 tool calls, then the
 * answer), in taoloop, LangChain.js (`createReactAgent` + `AgentExecutor`) and LlamaIndex.TS
 * (`ReActAgent`); and the heap each run holds while 1,000 runs are in flight at once. Report on stderr,
 * figures on stdout. See bench/README.md for what each measurement includes.
 *
 * Timing: each agent is built once and warmed up; then rounds, each timing a short batch of sequential
 * episodes of every agent in a rotating order, so that all agents share the machine's load alike. Time is
 * the process's CPU time (user + system, `process.cpuUsage`), which on a shared, noisy machine varies far
 * less than wall time (printed too); the figure is the median over rounds of CPU time per step (batch time
 * / episodes / 8). Every timed episode is checked: the expected answer, and 7 tool calls per episode.
 *
 * Memory: one child process per framework (`memory.ts`, run with `--expose-gc`), the three at once.
 *
 * Run: `npm run bench -- loop-overhead` (or `node --import tsx bench/loop-overhead/index.ts`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { benchDir } from '../lib/peer.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';
import {
  bundleTaoloop,
  type Contender,
  langchain,
  llamaindex,
  STREAM_CHUNK_CHARS,
  taoloop,
} from './frameworks.js';
import type { MemoryResult } from './memory.js';
import { ACTIONS, STEPS, TOOL_OUTPUT } from './script.js';

const COMMAND = 'npm run bench -- loop-overhead';
/** The ceiling that counts (issue 17): 0.1% of a 200 ms model call. The peers are context, not goals. */
const CEILING_US = 200;
const GOAL = `<= ${CEILING_US} µs/step (0.1% of a 200 ms model call, issue 17)`;
const ROUNDS = 25;
/**
 * Sequential episodes per round, per agent: more for the fast ones, so each batch takes similar time (5-20
 * ms in text mode on the dev machine: long enough that scheduling noise and the CPU clock's resolution are
 * small against it).
 */
const EPISODES_PER_ROUND = { taoloop: 100, langchain: 10, llamaindex: 25 } as const;
const WARMUP_EPISODES = 30;

const log = (line = '') => process.stderr.write(`${line}\n`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Timed {
  contender: Contender;
  episodesPerRound: number;
  /** Tool calls since the last check. */
  calls: { count: number };
  /** CPU microseconds per step, one entry per round. */
  usPerStep: number[];
  /** Wall-clock microseconds per step, one entry per round. */
  wallUsPerStep: number[];
  episodes: number;
}

type Maker = typeof taoloop;

async function prepare(make: Maker, streaming: boolean, episodesPerRound: number): Promise<Timed> {
  const calls = { count: 0 };
  const contender = await make(
    () => {
      calls.count++;
      return TOOL_OUTPUT;
    },
    { streaming, kind: 'sequential' },
  );
  const timed: Timed = { contender, episodesPerRound, calls, usPerStep: [], wallUsPerStep: [], episodes: 0 };
  await batch(timed, WARMUP_EPISODES);
  return timed;
}

/**
 * Runs `episodes` sequential episodes; returns the CPU and wall time in µs. Throws when any went off script.
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
  if (wrong > 0 || calls.count !== episodes * ACTIONS) {
    throw new Error(
      `${contender.name}: ${wrong} of ${episodes} episodes went off script (${calls.count} tool calls, ` +
        `expected ${episodes * ACTIONS}; last wrong answer: ${JSON.stringify(lastWrong)})`,
    );
  }
  return { cpuUs: cpu.user + cpu.system, wallUs };
}

function runMemoryChild(framework: string): Promise<MemoryResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', join(benchDir, 'loop-overhead', 'memory.ts'), framework],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`memory test for ${framework} exited with code ${code}`));
      else resolve(JSON.parse(stdout.trim()) as MemoryResult);
    });
  });
}

async function main() {
  const started = performance.now();
  log(
    `Episode: ${STEPS} steps (${ACTIONS} no-op tool calls, then the answer); model and tool answer at once.`,
  );
  if (!(await bundleTaoloop())) log('esbuild not found: measuring taoloop from src through tsx (slower)');
  log('Building and warming up the agents ...');
  const text = [
    await prepare(taoloop, false, EPISODES_PER_ROUND.taoloop),
    await prepare(langchain, false, EPISODES_PER_ROUND.langchain),
    await prepare(llamaindex, false, EPISODES_PER_ROUND.llamaindex),
  ] as const;
  const streamed = [
    await prepare(taoloop, true, EPISODES_PER_ROUND.taoloop),
    await prepare(langchain, true, EPISODES_PER_ROUND.langchain),
    await prepare(llamaindex, true, EPISODES_PER_ROUND.llamaindex),
  ] as const;
  const all: Timed[] = [...text, ...streamed];
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < all.length; k++) {
      const timed = all[(k + r) % all.length]!;
      const { cpuUs, wallUs } = await batch(timed, timed.episodesPerRound);
      const steps = timed.episodesPerRound * STEPS;
      timed.episodes += timed.episodesPerRound;
      timed.usPerStep.push(cpuUs / steps);
      timed.wallUsPerStep.push(wallUs / steps);
    }
  }
  log(
    `\nCPU time per step, µs: median of ${ROUNDS} rounds (min-max), then wall time's median; streamed turns ` +
      `come in ${STREAM_CHUNK_CHARS}-character chunks:`,
  );
  const width = Math.max(...all.map((t) => t.contender.name.length));
  for (const t of all) {
    log(
      `  ${t.contender.name.padEnd(width)}  ${String(round(median(t.usPerStep))).padStart(7)} ` +
        `(${round(Math.min(...t.usPerStep))}-${round(Math.max(...t.usPerStep))})  wall ` +
        `${round(median(t.wallUsPerStep))}  [${t.episodes} episodes, ${t.episodes * ACTIONS} tool calls, ` +
        `all answered; ${t.contender.from}]`,
    );
  }

  const figures = (name: string, ours: Timed, peers: readonly Timed[]) => {
    const value = round(median(ours.usPerStep));
    for (const [i, peer] of peers.entries()) {
      const baselineValue = round(median(peer.usPerStep));
      const ratio = ratioOf(value, baselineValue);
      emitFigure({
        figure: name,
        value,
        unit: 'µs/step',
        baseline: peer.contender.name,
        baselineValue,
        ratio: ratio === null ? null : round(ratio, 3),
        command: COMMAND,
        ...(i === 0 && { goal: GOAL, met: value <= CEILING_US }),
      });
    }
  };
  figures('loop overhead per step, text mode (taoloop)', text[0], [text[1], text[2]]);
  figures('loop overhead per step, streaming (taoloop)', streamed[0], [streamed[1], streamed[2]]);

  log('\nMemory: 1,000 runs in flight at once, each held in its 4th tool call (one child process each) ...');
  const memory = await Promise.all(['taoloop', 'langchain', 'llamaindex'].map(runMemoryChild));
  for (const m of memory) {
    log(
      `  ${m.name.padEnd(width)}  ${String(round(m.bytesPerRun / 1024)).padStart(7)} KB per run  ` +
        `(heap ${round(m.heapBeforeBytes / 2 ** 20)} MB before, ${round(m.heapInFlightBytes / 2 ** 20)} MB in flight; ` +
        `all ${m.runs} held after ${Math.round(m.startMs)} ms; all answered after 7 tool calls each)`,
    );
  }
  const [ours, ...peers] = memory;
  for (const peer of peers) {
    const value = round(ours!.bytesPerRun / 1024);
    const baselineValue = round(peer.bytesPerRun / 1024);
    const ratio = ratioOf(value, baselineValue);
    emitFigure({
      figure: 'memory per run, 1,000 runs in flight (taoloop)',
      value,
      unit: 'KB/run',
      baseline: peer.name,
      baselineValue,
      ratio: ratio === null ? null : round(ratio, 3),
      command: COMMAND,
    });
  }
  log(`\nloop-overhead finished in ${round((performance.now() - started) / 1000)} s`);
}

await main();
