/**
 * The runs folder as the playground sees it: traces named by run id, listed newest first. Folder, names
 * and summaries come from `trace/runs.ts` (shared with `taoloop runs`); this module adds the id check that
 * keeps a request inside the folder.
 *
 * @module
 */
import { basename, join } from 'node:path';
import { listRuns as listRunFiles, newRunFile, type RunSummary as TraceRunSummary } from '../trace/runs.js';

/** One past run, as listed on the page (no file paths). */
export type RunSummary = Omit<TraceRunSummary, 'file'>;

/** Run ids are file names without `.jsonl`: no separators, no leading dot, so no way out of the folder. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A new run id in `dir` (the trace file's name without `.jsonl`: start time, then a random suffix). */
export function newRunFileId(dir: string, now: Date = new Date()): string {
  return basename(newRunFile(dir, now), '.jsonl');
}

/** The trace file of run `id` in `dir`, or `undefined` when `id` is not a valid run id. */
export function runFile(dir: string, id: string): string | undefined {
  return RUN_ID.test(id) ? join(dir, `${id}.jsonl`) : undefined;
}

/** The newest `limit` runs in `dir`, newest first; a missing folder has none. */
export function listRuns(dir: string, limit = 50): RunSummary[] {
  return listRunFiles(dir, limit)
    .filter((run) => RUN_ID.test(run.id))
    .map(({ file: _, ...run }) => run);
}
