/**
 * `taoloop runs`: the recent runs in the runs folder, newest first: time, question, model, status, steps,
 * tokens, cost and the short id (which `taoloop trace`, `taoloop replay` and `run --continue` accept, and
 * which `--json` gives as `shortId`). A long model id keeps its model name: the provider and base URL
 * before it are what is cut. Broken files are listed as `unreadable` rather than stopping the listing.
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

const flatten = (text: string) => safeText(text.replace(/\s+/g, ' ').trim());

const truncate = (text: string, max: number) => {
  const flat = flatten(text);
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/** Widest model column, in characters. */
const MODEL_WIDTH = 40;

/**
 * A model id in at most `max` characters, its model name whole where it fits: the part before it (the
 * provider and, for `openai-compatible:<url>#<model>`, the base URL) is cut first.
 * `openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-7b-instruct` → `openai-compatible:h…#qwen2.5-7b-instruct`.
 */
export function modelCell(modelId: string, max = MODEL_WIDTH): string {
  const flat = flatten(modelId);
  if (flat.length <= max) return flat;
  const hash = flat.lastIndexOf('#');
  const colon = flat.indexOf(':');
  const cut = hash >= 0 ? hash : colon;
  const name = flat.slice(cut + 1);
  const head = flat.slice(0, cut + 1);
  // Room for at least a few characters of the provider before the ellipsis; else the name alone.
  const room = max - name.length - 2;
  if (cut < 0 || room < 4) return truncate(name, max);
  return `${head.slice(0, room)}…${head.at(-1)}${name}`;
}

function row(run: RunSummary): string[] {
  const time = run.startedAt ? run.startedAt.replace('T', ' ').slice(0, 19) : '?';
  return [
    time,
    run.status === 'unreadable' ? truncate(run.problem ?? '', 48) : truncate(run.question, 48),
    modelCell(run.modelId),
    run.status,
    String(run.steps),
    run.tokens === undefined ? '-' : String(run.tokens),
    run.costUsd === undefined ? '-' : formatUsd(run.costUsd),
    // The short id at the end of the file name is enough for `taoloop trace` and `taoloop replay`.
    run.shortId,
  ];
}
