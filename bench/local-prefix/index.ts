/**
 * local-prefix: prompt tokens the local (node-llama-cpp) adapter evaluates per step, with the KV cache kept
 * between steps (prefix reuse, the default) against a fresh evaluation of the whole prompt every step
 * (`reusePrefix: false`), for agent runs of 2, 4, 8 and 16 steps on the tiny random-weight model built by
 * `scripts/make-tiny-gguf.ts` (steered so that runs go on until their step limit). The loop re-sends the
 * whole conversation each step: with reuse only the new observation is evaluated, so the total grows
 * linearly with the steps; without, every step re-reads the growing transcript, so it grows quadratically.
 *
 * Evaluated tokens per step = `inputTokens - cachedInputTokens` from the adapter's usage. Report on stderr,
 * figures on stdout. Run: `npm run bench -- local-prefix` (or `node --import tsx bench/local-prefix/index.ts`).
 */
import { DEFAULT_TINY_GGUF_PATH, ensureTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { runAgent } from '../../src/agent/loop.js';
import { type LocalModel, localModel } from '../../src/models/local.js';
import type { Model, ModelRequest, TurnFormat } from '../../src/models/types.js';
import type { Tool } from '../../src/tools/types.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';

const COMMAND = 'npm run bench -- local-prefix';
const RUN_LENGTHS = [2, 4, 8, 16] as const;
/** Short turns: the tiny model's tokens are single bytes. */
const LIMITS = { maxThoughtChars: 30, maxInputChars: 15, maxAnswerChars: 30 };

const tools: Tool[] = [
  {
    name: 'search',
    description: 'Searches the documents.',
    run: async () => 'Brightgrid Pro costs $20 per month.',
  },
  { name: 'lookup', description: 'Looks up a term.', run: async () => 'No entry for that term.' },
];
const format: TurnFormat = {
  tools: tools.map((t) => t.name),
  labels: { thought: 'Thought', action: 'Action', answer: 'Answer' },
};

interface Run {
  steps: number;
  /** Prompt tokens evaluated at each step. */
  evaluated: number[];
  /** Prompt tokens at each step. */
  prompt: number[];
  wallMs: number;
}

/** Adds the turn format for loops that do not send one, so the grammar is always on. */
function withTurnFormat(model: LocalModel): Model {
  const add = (request: ModelRequest): ModelRequest =>
    request.turnFormat ? request : { ...request, turnFormat: format };
  return {
    id: model.id,
    contextWindowTokens: model.contextWindowTokens,
    generate: (request) => model.generate(add(request)),
    stream: (request) => model.stream(add(request)),
  };
}

async function measure(path: string, steps: number, reusePrefix: boolean): Promise<Run> {
  const model = await localModel(path, { grammarLimits: LIMITS, reusePrefix });
  try {
    const started = performance.now();
    const result = await runAgent({
      model: withTurnFormat(model),
      tools,
      question: 'How much does Brightgrid Pro cost per year for 7 developers?',
      maxSteps: steps,
      limits: { maxRepeatedActions: steps + 1 },
    });
    const wallMs = performance.now() - started;
    if (result.steps.length !== steps) {
      throw new Error(`a ${steps}-step run ended after ${result.steps.length} steps (${result.status})`);
    }
    const prompt = result.steps.map((s) => s.usage.inputTokens ?? Number.NaN);
    const evaluated = result.steps.map(
      (s) => (s.usage.inputTokens ?? Number.NaN) - (s.usage.cachedInputTokens ?? 0),
    );
    return { steps, evaluated, prompt, wallMs };
  } finally {
    await model.dispose();
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function report(reuse: Run, fresh: Run): void {
  process.stderr.write(
    `\n${reuse.steps}-step run: evaluated prompt tokens per step (reuse | no reuse | prompt size)\n` +
      reuse.evaluated
        .map((e, i) => `  step ${i + 1}: ${e} | ${fresh.evaluated[i]} | ${reuse.prompt[i]}`)
        .join('\n') +
      `\n  total: ${sum(reuse.evaluated)} | ${sum(fresh.evaluated)}; wall ${reuse.wallMs.toFixed(0)} ms | ${fresh.wallMs.toFixed(0)} ms\n`,
  );
}

async function main(): Promise<void> {
  const path = ensureTinyGguf(DEFAULT_TINY_GGUF_PATH);
  process.stderr.write(`local-prefix: tiny model ${path}\n`);
  const totals = new Map<number, { reuse: number; fresh: number }>();
  for (const steps of RUN_LENGTHS) {
    const reuse = await measure(path, steps, true);
    const fresh = await measure(path, steps, false);
    report(reuse, fresh);
    const total = { reuse: sum(reuse.evaluated), fresh: sum(fresh.evaluated) };
    totals.set(steps, total);
    emitFigure({
      figure: `prompt tokens evaluated, ${steps}-step run, prefix reuse (taoloop local)`,
      value: total.reuse,
      unit: 'tokens',
      against: 'self',
      baseline: 'same adapter, reusePrefix: false (whole prompt each step)',
      baselineValue: total.fresh,
      ratio: ratioOf(total.reuse, total.fresh),
      command: COMMAND,
      goal: 'fewer than without reuse',
      met: total.reuse < total.fresh,
    });
  }
  // Linear growth: the 8 steps from 8 to 16 cost twice the 4 steps from 4 to 8, i.e. the same per step.
  const perStep = (from: number, to: number, key: 'reuse' | 'fresh') =>
    ((totals.get(to)?.[key] ?? 0) - (totals.get(from)?.[key] ?? 0)) / (to - from);
  const growth = (key: 'reuse' | 'fresh') => perStep(8, 16, key) / perStep(4, 8, key);
  const reuseGrowth = growth('reuse');
  process.stderr.write(
    `\nper-step cost, steps 9-16 vs steps 5-8: ${reuseGrowth.toFixed(2)}x with reuse (1 = linear total), ${growth('fresh').toFixed(2)}x without (quadratic total)\n`,
  );
  emitFigure({
    figure: 'growth of per-step evaluated tokens, steps 9-16 vs 5-8, prefix reuse (taoloop local)',
    value: Number(reuseGrowth.toFixed(3)),
    unit: 'x',
    against: 'self',
    baseline: 'same adapter, reusePrefix: false',
    baselineValue: Number(growth('fresh').toFixed(3)),
    ratio: ratioOf(reuseGrowth, growth('fresh')),
    command: COMMAND,
    goal: 'about 1 (total linear in steps)',
    met: reuseGrowth < 1.25,
  });
}

await main();
