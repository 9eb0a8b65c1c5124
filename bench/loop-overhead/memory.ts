/**
 * The memory test, one framework per process: `node --expose-gc --import tsx bench/loop-overhead/memory.ts
 * <taoloop|langchain|llamaindex>`. Starts 1,000 runs of the episode at once; each holds inside its 4th tool
 * call on one shared promise, so all 1,000 are in flight together, each with 3 steps of transcript behind
 * it. Heap used (after forced garbage collection) while they wait, minus heap used before they started,
 * divided by 1,000, is the memory per run in flight. Then the promise resolves, every run must finish with
 * the answer after exactly 7 tool calls, and the script prints one JSON line on stdout.
 *
 * @module
 */
import { type Contender, langchain, llamaindex, taoloop } from './frameworks.js';
import { ACTIONS, HOLD_INPUT, TOOL_OUTPUT } from './script.js';

export const CONCURRENT_RUNS = 1000;
const WARMUP_RUNS = 30;

/** What the child prints. */
export interface MemoryResult {
  name: string;
  runs: number;
  bytesPerRun: number;
  heapBeforeBytes: number;
  heapInFlightBytes: number;
  /** Wall time from starting the runs until all were held, ms. */
  startMs: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function settledHeap(): Promise<number> {
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

async function main(which: string): Promise<MemoryResult> {
  let holding = false;
  let held = 0;
  let toolCalls = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let allHeld: () => void = () => {};
  const everyoneHeld = new Promise<void>((resolve) => {
    allHeld = resolve;
  });
  const tool = async (input: string): Promise<string> => {
    toolCalls++;
    if (holding && input.trim() === HOLD_INPUT) {
      held++;
      if (held === CONCURRENT_RUNS) allHeld();
      await gate;
    }
    return TOOL_OUTPUT;
  };
  const makers = { taoloop, langchain, llamaindex };
  const make = makers[which as keyof typeof makers];
  if (!make) throw new Error(`unknown framework ${which}`);
  const contender: Contender = await make(tool, { streaming: false, kind: 'concurrent' });

  // Warm up: loads lazy modules, fills caches and JIT-compiles, so the heap difference is the runs alone.
  const warmAnswers = await Promise.all(Array.from({ length: WARMUP_RUNS }, () => contender.run()));
  const { expected } = contender;
  if (toolCalls !== WARMUP_RUNS * ACTIONS || warmAnswers.some((a) => a !== expected)) {
    throw new Error(`${contender.name}: warm-up runs went off script (${toolCalls} tool calls)`);
  }
  toolCalls = 0;

  const heapBeforeBytes = await settledHeap();
  holding = true;
  const started = performance.now();
  const runs = Array.from({ length: CONCURRENT_RUNS }, () => contender.run());
  await everyoneHeld;
  const startMs = performance.now() - started;
  const heapInFlightBytes = await settledHeap();
  release();
  const answers = await Promise.all(runs);
  const wrong = answers.filter((a) => a !== expected).length;
  if (wrong > 0 || toolCalls !== CONCURRENT_RUNS * ACTIONS) {
    throw new Error(
      `${contender.name}: ${wrong} of ${CONCURRENT_RUNS} runs went off script (${toolCalls} tool calls, expected ${CONCURRENT_RUNS * ACTIONS})`,
    );
  }
  return {
    name: contender.name,
    runs: CONCURRENT_RUNS,
    bytesPerRun: (heapInFlightBytes - heapBeforeBytes) / CONCURRENT_RUNS,
    heapBeforeBytes,
    heapInFlightBytes,
    startMs,
  };
}

const which = process.argv[2] ?? '';
process.stdout.write(`${JSON.stringify(await main(which))}\n`);
