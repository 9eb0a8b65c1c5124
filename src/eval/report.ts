/**
 * The evaluation report: per strategy, the score (EM and F1 for QA, label accuracy for FEVER), mean steps,
 * tokens, cost, stop reasons, format errors, invented observations dropped and tool errors; as a text
 * table, as Markdown, and (see `chart.ts`) as an SVG chart of score against cost.
 *
 * Source: the columns of Yao et al. 2022, table 1 (HotpotQA EM, FEVER accuracy), plus what a run costs.
 *
 * @module
 */
import { addCost } from '../models/pricing.js';
import type { DatasetKind } from './datasets.js';
import type { ItemResult, StrategyName } from './types.js';

/** One strategy's totals. */
export interface StrategySummary {
  strategy: StrategyName;
  items: number;
  /** Share of items scored 1 (EM or label accuracy), 0..1; `NaN` for no items. */
  score: number;
  /** QA only: mean F1, 0..1. */
  f1?: number;
  meanSteps: number;
  inputTokens: number;
  outputTokens: number;
  /** USD; `undefined` when some result's cost is unknown. */
  costUsd?: number;
  /** How the items ended, e.g. `{ answered: 40, max_steps: 2 }`. */
  stopReasons: Record<string, number>;
  formatErrors: number;
  inventedObservations: number;
  toolErrors: number;
  /** Hybrids: items where the fallback ran. */
  switched: number;
}

/** Sums results per strategy, in the order of `strategies`. */
export function summarize(
  results: readonly ItemResult[],
  strategies: readonly StrategyName[],
  kind: DatasetKind,
): StrategySummary[] {
  return strategies.map((strategy) => {
    const mine = results.filter((r) => r.strategy === strategy);
    const sum = (f: (r: ItemResult) => number) => mine.reduce((total, r) => total + f(r), 0);
    const stopReasons: Record<string, number> = {};
    for (const r of mine) stopReasons[r.status] = (stopReasons[r.status] ?? 0) + 1;
    let cost: number | undefined = 0;
    for (const r of mine)
      cost = cost === undefined || r.costUsd === undefined ? undefined : addCost(cost, r.costUsd);
    return {
      strategy,
      items: mine.length,
      score: sum((r) => r.score) / mine.length,
      ...(kind === 'qa' && { f1: sum((r) => r.f1 ?? 0) / mine.length }),
      meanSteps: sum((r) => r.steps) / mine.length,
      inputTokens: sum((r) => r.usage.inputTokens ?? 0),
      outputTokens: sum((r) => r.usage.outputTokens ?? 0),
      ...(cost !== undefined && mine.length > 0 && { costUsd: cost }),
      stopReasons,
      formatErrors: sum((r) => r.formatErrors),
      inventedObservations: sum((r) => r.inventedObservations),
      toolErrors: sum((r) => r.toolErrors),
      switched: sum((r) => (r.switched ? 1 : 0)),
    };
  });
}

const HYBRIDS: ReadonlySet<StrategyName> = new Set(['react-cot-sc', 'cot-sc-react']);
const percent = (x: number | undefined) =>
  x === undefined || Number.isNaN(x) ? '-' : `${(x * 100).toFixed(1)}%`;
const usd = (x: number | undefined) => (x === undefined ? 'unknown' : `$${x.toFixed(4)}`);
const stops = (reasons: Record<string, number>) =>
  Object.entries(reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');

/** The report's rows: a header, then one row of cells per strategy. */
export function reportRows(summaries: readonly StrategySummary[], kind: DatasetKind): string[][] {
  const header = [
    'strategy',
    'items',
    kind === 'qa' ? 'EM' : 'accuracy',
    ...(kind === 'qa' ? ['F1'] : []),
    'mean steps',
    'tokens (in/out)',
    'cost',
    'stop reasons',
    'format errors',
    'invented obs. dropped',
    'tool errors',
    'switched',
  ];
  const rows = summaries.map((s) => [
    s.strategy,
    String(s.items),
    percent(s.score),
    ...(kind === 'qa' ? [percent(s.f1)] : []),
    s.items === 0 ? '-' : s.meanSteps.toFixed(2),
    `${s.inputTokens}/${s.outputTokens}`,
    usd(s.costUsd),
    stops(s.stopReasons),
    String(s.formatErrors),
    String(s.inventedObservations),
    String(s.toolErrors),
    HYBRIDS.has(s.strategy) ? String(s.switched) : '-',
  ]);
  return [header, ...rows];
}

/** The rows as an aligned plain-text table for the terminal. */
export function formatTable(rows: readonly string[][]): string {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  const line = (row: readonly string[]) =>
    row
      .map((cell, col) => cell.padEnd(widths[col] ?? 0))
      .join('  ')
      .trimEnd();
  const [header = [], ...body] = rows;
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The report as Markdown: a title, what was run, and the table. */
export function renderMarkdown(input: {
  title: string;
  details: readonly string[];
  rows: readonly string[][];
}): string {
  const escapeCell = (cell: string) => cell.replace(/\|/g, '\\|');
  const [header = [], ...body] = input.rows;
  const table = [
    `| ${header.map(escapeCell).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...body.map((row) => `| ${row.map(escapeCell).join(' | ')} |`),
  ];
  return [`# ${input.title}`, '', ...input.details.map((d) => `- ${d}`), '', ...table, ''].join('\n');
}
