/**
 * `taoloop runs`: the recent runs in the runs folder, newest first: time, question, model, status, steps,
 * tokens, cost and id (which `taoloop trace` and `taoloop replay` accept). Broken files are listed as
 * `unreadable` rather than stopping the listing.
 *
 * @module
 */
import pc from 'picocolors';
import { listRuns, type RunSummary, runsFolder } from '../../trace/runs.js';
import { formatUsd } from '../render.js';
import { safeText } from '../safe-text.js';

/** Options of `taoloop runs`. */
export interface RunsCommandOptions {
  limit: number;
  json: boolean;
}

/** Prints the list and returns 0. */
export function runsCommand(options: RunsCommandOptions): number {
  const folder = runsFolder(process.cwd(), process.env);
  const runs = listRuns(folder, options.limit);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ folder, runs }, null, 2)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    process.stderr.write(`No runs yet in ${folder}.\n`);
    return 0;
  }
  const header = ['time', 'question', 'model', 'status', 'steps', 'tokens', 'cost', 'id'];
  const rows = runs.map(row);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${pc.bold(line(header))}\n`);
  for (const [i, cells] of rows.entries()) {
    const broken = runs[i]?.status === 'unreadable' || runs[i]?.status === 'crashed';
    process.stdout.write(`${broken ? pc.red(line(cells)) : line(cells)}\n`);
  }
  process.stderr.write(pc.dim(`${runs.length} run(s) from ${folder}\n`));
  return 0;
}

const truncate = (text: string, max: number) => {
  const flat = safeText(text.replace(/\s+/g, ' ').trim());
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

function row(run: RunSummary): string[] {
  const time = run.startedAt ? run.startedAt.replace('T', ' ').slice(0, 19) : '?';
  return [
    time,
    run.status === 'unreadable' ? truncate(run.problem ?? '', 48) : truncate(run.question, 48),
    truncate(run.modelId, 32),
    run.status,
    String(run.steps),
    run.tokens === undefined ? '-' : String(run.tokens),
    run.costUsd === undefined ? '-' : formatUsd(run.costUsd),
    // The short id at the end of the file name is enough for `taoloop trace` and `taoloop replay`.
    /-([0-9a-f]{6})$/.exec(run.id)?.[1] ?? run.id,
  ];
}
