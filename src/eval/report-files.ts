/**
 * Writing an evaluation's report files next to its results: `report.md` (the table) and `chart.svg`
 * (score against cost).
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderChart } from './chart.js';
import type { Dataset } from './datasets.js';
import { formatTable, renderMarkdown, reportRows, summarize } from './report.js';
import type { EvalRun } from './runner.js';
import type { StrategyName } from './types.js';

/** What {@link writeReport} wrote, and the table to print. */
export interface WrittenReport {
  table: string;
  markdownFile: string;
  chartFile: string;
}

/** Summarises `run`, writes `report.md` and `chart.svg` into `outDir`, and returns the text table. */
export function writeReport(input: {
  run: EvalRun;
  dataset: Dataset;
  strategies: readonly StrategyName[];
  modelId: string;
  outDir: string;
  resultsFile: string;
}): WrittenReport {
  const { dataset } = input;
  const summaries = summarize(input.run.results, input.strategies, dataset.kind);
  const rows = reportRows(summaries, dataset.kind);
  const scoreLabel = dataset.kind === 'qa' ? 'EM' : 'accuracy';
  const title = `${dataset.name} · ${input.modelId}`;
  mkdirSync(input.outDir, { recursive: true });
  const markdownFile = join(input.outDir, 'report.md');
  const chartFile = join(input.outDir, 'chart.svg');
  const details = [
    `Model: \`${input.modelId}\``,
    `Dataset: ${dataset.name} (${dataset.kind === 'qa' ? 'exact match and F1' : 'label accuracy'})`,
    `Results: \`${input.resultsFile}\` (${input.run.results.length} results${input.run.interrupted ? ', interrupted: rerun to finish' : ''})`,
    'Chart: `chart.svg` (score against cost)',
  ];
  writeFileSync(markdownFile, renderMarkdown({ title: `Evaluation: ${title}`, details, rows }));
  writeFileSync(chartFile, renderChart(summaries, { title, scoreLabel }));
  return { table: formatTable(rows), markdownFile, chartFile };
}
