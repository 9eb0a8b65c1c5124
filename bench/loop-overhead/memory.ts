/**
 * The memory test, one contender per process: `node --expose-gc --import tsx bench/loop-overhead/memory.ts
 * <taoloop-text|taoloop-native|ai-sdk|langchain> [runs]`. Starts `runs` runs of the 8-step episode at once;
 * each holds inside its 4th tool call on one shared promise, so all are in flight together, each with 3
 * steps of transcript behind it. Heap used (after forced garbage collection) while they wait, minus heap
 * used before they started, divided by the runs, is the memory per run in flight. Then the promise
 * resolves, every run must finish with the answer after exactly 7 tool calls, and the script prints one
 * JSON line on stdout.
 *
 * @module
 */
import { CONTENDERS, type Contender, type ContenderKey } from './frameworks.js';
import { HOLD_INPUT, MEMORY_STEPS, TOOL_OUTPUT } from './script.js';

export const DEFAULT_CONCURRENT_RUNS = 500;
const WARMUP_RUNS = 30;

/** What the child prints. */
export interface MemoryResult {
  key: ContenderKey;
  name: string;
  runs: number;
  bytesPerRun: number;
  heapBeforeBytes: number;
  heapInFlightBytes: number;
  /** Wall time from starting the runs until all were held, ms. */
  startMs: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function settledHeap(contender: Contender): Promise<number> {
  if (!gc) throw new Error('run with --expose-gc');
  // The AI SDK mock keeps every call's options: not the contender's memory.
  contender.forget();
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

async function main(key: string, runs: number): Promise<MemoryResult> {
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
      if (held === runs) allHeld();
      await gate;
    }
    return TOOL_OUTPUT;
  };
  if (!Object.hasOwn(CONTENDERS, key)) throw new Error(`unknown contender ${key}`);
  const contender = await CONTENDERS[key as ContenderKey](tool, { steps: MEMORY_STEPS, kind: 'concurrent' });
  const { expected, actions } = contender;

  // Warm up: loads lazy modules, fills caches and JIT-compiles, so the heap difference is the runs alone.
  const warmAnswers = await Promise.all(Array.from({ length: WARMUP_RUNS }, () => contender.run()));
  if (toolCalls !== WARMUP_RUNS * actions || warmAnswers.some((a) => a !== expected)) {
    throw new Error(
      `${contender.name}: warm-up runs went off script (${toolCalls} tool calls; ${JSON.stringify(warmAnswers[0])})`,
    );
  }
  toolCalls = 0;

  const heapBeforeBytes = await settledHeap(contender);
  holding = true;
  const started = performance.now();
  const running = Array.from({ length: runs }, () => contender.run());
  await everyoneHeld;
  const startMs = performance.now() - started;
  const heapInFlightBytes = await settledHeap(contender);
  release();
  const answers = await Promise.all(running);
  const wrong = answers.filter((a) => a !== expected).length;
  if (wrong > 0 || toolCalls !== runs * actions) {
    throw new Error(
      `${contender.name}: ${wrong} of ${runs} runs went off script (${toolCalls} tool calls, expected ${runs * actions})`,
    );
  }
  return {
    key: key as ContenderKey,
    name: contender.name,
    runs,
    bytesPerRun: (heapInFlightBytes - heapBeforeBytes) / runs,
    heapBeforeBytes,
    heapInFlightBytes,
    startMs,
  };
}

const key = process.argv[2] ?? '';
const runs = Number(process.argv[3] ?? DEFAULT_CONCURRENT_RUNS);
process.stdout.write(`${JSON.stringify(await main(key, runs))}\n`);
