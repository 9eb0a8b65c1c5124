/**
 * The runs folder as the playground sees it: traces named by run id, listed newest first. Folder, names
 * and summaries come from `trace/runs.ts` (shared with `taoloop runs`); this module adds what keeps a
 * request inside the folder: the id check, and reading a trace only from a regular file that is in the
 * folder itself (never through a symbolic link, whose target may be anywhere).
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { newRunFile, runFiles, summarizeRun, type RunSummary as TraceRunSummary } from '../trace/runs.js';

/** One past run, as listed on the page (no file paths). */
export type RunSummary = Omit<TraceRunSummary, 'file'> & {
  /** The model spec picked on the page, for a run the playground started (from its trace's header). */
  model?: string;
  /** The answer, for a run that answered (what the page's search looks in, with the question). */
  answer?: string;
};

/** What {@link listRuns} keeps: a run passes when it matches every filter given. */
export interface RunFilter {
  /** Words that must each be in the question or the answer (case-insensitive). */
  text?: string;
  /** The run's status (`answered`, `max_steps`, `crashed`, ...). */
  status?: string;
  /** Keeps a run when this says yes (e.g. its model, as the page names it). */
  keep?: (run: RunSummary) => boolean;
}

/** Run ids are file names without `.jsonl`: no separators, no leading dot, so no way out of the folder. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A trace the playground refuses to read: a symbolic link, not a regular file, or outside the folder. */
export class RunFileRefused extends Error {
  override name = 'RunFileRefused';
}

/**
 * A new run id in `dir` (the trace file's name without `.jsonl`: start time, the key of the conversation it
 * continues if any, then a random suffix; see `newRunFile`).
 */
export function newRunFileId(dir: string, now: Date = new Date(), conversationId?: string): string {
  return basename(newRunFile(dir, now, conversationId), '.jsonl');
}

/** The trace file of run `id` in `dir`, or `undefined` when `id` is not a valid run id. */
export function runFile(dir: string, id: string): string | undefined {
  return RUN_ID.test(id) ? join(dir, `${id}.jsonl`) : undefined;
}

/**
 * Opens the trace of run `id` in `dir` for reading: `fd` (the caller closes it), `size` in bytes and the
 * time it was last written (`mtimeMs`). The
 * file is opened without following a symbolic link (`O_NOFOLLOW`, and `lstat` first where the system has
 * no such flag), must be a regular file, and its real path must be in the real runs folder.
 *
 * @returns `undefined` when `id` is not a run id or no such file exists.
 * @throws {RunFileRefused} for a symbolic link, anything but a regular file, or a file outside the folder.
 */
export function openRunFile(
  dir: string,
  id: string,
): { fd: number; size: number; mtimeMs: number } | undefined {
  const file = runFile(dir, id);
  if (!file) return undefined;
  let fd: number;
  try {
    if (lstatSync(file).isSymbolicLink())
      throw new RunFileRefused(`the trace of run "${id}" is a symbolic link`);
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw new RunFileRefused(`the trace of run "${id}" is a symbolic link`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new RunFileRefused(`the trace of run "${id}" is not a regular file`);
    if (dirname(realpathSync(file)) !== realpathSync(dir))
      throw new RunFileRefused(`the trace of run "${id}" is not in the runs folder`);
    return { fd, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * The text of run `id`'s trace, read as {@link openRunFile} opens it.
 *
 * @returns `undefined` when there is no such run.
 * @throws {RunFileRefused} as {@link openRunFile}.
 */
export function readRunFile(dir: string, id: string): string | undefined {
  const opened = openRunFile(dir, id);
  if (!opened) return undefined;
  try {
    return readFileSync(opened.fd, 'utf8');
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Deletes run `id`'s trace from `dir`: only a regular file in the folder itself, checked as
 * {@link openRunFile} checks it (a symbolic link is refused, never followed nor removed).
 *
 * @returns false when there is no such run.
 * @throws {RunFileRefused} as {@link openRunFile}.
 */
export function deleteRunFile(dir: string, id: string): boolean {
  const opened = openRunFile(dir, id);
  if (!opened) return false;
  closeSync(opened.fd);
  try {
    unlinkSync(runFile(dir, id) as string);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  return true;
}

/** The most traces one listing reads (the newest): a search looks no further back. */
export const MAX_SCANNED_RUNS = 500;

/**
 * The newest `limit` runs in `dir` that pass `filter`, newest first, among the newest
 * {@link MAX_SCANNED_RUNS}; a missing folder has none. A trace the playground would refuse to read (see
 * {@link openRunFile}) is not listed. `onEach` sees every run read, before the filter (the page's filters
 * offer what there is).
 */
export function listRuns(
  dir: string,
  limit = 50,
  filter: RunFilter = {},
  onEach?: (run: RunSummary) => void,
): RunSummary[] {
  const runs: RunSummary[] = [];
  const words = (filter.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  for (const file of runFiles(dir).slice(0, MAX_SCANNED_RUNS)) {
    if (runs.length >= limit && !onEach) break;
    const id = basename(file, '.jsonl');
    if (!RUN_ID.test(id)) continue;
    let listed: RunSummary;
    try {
      const read = summaryOf(dir, id, file);
      if (read === undefined) continue; // gone since the folder was listed
      listed = read;
    } catch (error) {
      if (error instanceof RunFileRefused) continue;
      // Unreadable (a permission, say): listed as such, as `summarizeRun` lists it.
      const { file: _, ...run } = summarizeRun(file, () => {
        throw error;
      });
      listed = run;
    }
    onEach?.(listed);
    if (runs.length >= limit) continue;
    if (filter.status !== undefined && listed.status !== filter.status) continue;
    if (filter.keep && !filter.keep(listed)) continue;
    const haystack = `${listed.question}\n${listed.answer ?? ''}`.toLowerCase();
    if (!words.every((word) => haystack.includes(word))) continue;
    runs.push(listed);
  }
  return runs;
}

/**
 * Summaries of the traces already read, by file: a trace is read again only when its size or write time
 * changed. The page asks for the list again at each pause in typing a search, and reading the traces whole
 * each time took 1.3 s for 201 traces of 2 MB.
 */
const summaries = new Map<string, { size: number; mtimeMs: number; listed: RunSummary }>();
/** Summaries kept at most, over every runs folder (the oldest are dropped first). */
const MAX_SUMMARIES = 4 * MAX_SCANNED_RUNS;

/**
 * The summary of run `id` (its trace `file` in `dir`), from {@link summaries} when the file is unchanged.
 *
 * @returns `undefined` when the file is gone.
 * @throws {RunFileRefused} as {@link openRunFile}; any error of reading it.
 */
function summaryOf(dir: string, id: string, file: string): RunSummary | undefined {
  const opened = openRunFile(dir, id);
  if (!opened) return undefined;
  let text: string;
  try {
    const known = summaries.get(file);
    if (known && known.size === opened.size && known.mtimeMs === opened.mtimeMs) return known.listed;
    text = readFileSync(opened.fd, 'utf8');
  } finally {
    closeSync(opened.fd);
  }
  const { file: _, ...run } = summarizeRun(file, () => text);
  const model = pickedModel(text);
  const answer = answerOf(text);
  const listed: RunSummary = {
    ...run,
    ...(model !== undefined && { model }),
    ...(answer !== undefined && { answer }),
  };
  summaries.delete(file);
  summaries.set(file, { size: opened.size, mtimeMs: opened.mtimeMs, listed });
  if (summaries.size > MAX_SUMMARIES) summaries.delete(summaries.keys().next().value as string);
  return listed;
}

/** The answer of a trace that ended answered (its `run-end` line, read from the end). */
function answerOf(text: string): string | undefined {
  const lines = text.trimEnd().split('\n');
  for (let i = lines.length - 1; i > 0 && i >= lines.length - 3; i -= 1) {
    try {
      const line: unknown = JSON.parse(lines[i] as string);
      const result = (line as { type?: unknown; result?: { answer?: unknown } } | null)?.result;
      if ((line as { type?: unknown }).type === 'run-end')
        return typeof result?.answer === 'string' ? result.answer : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The model spec a playground run was started with (its header's `meta.model`), if the trace says so. */
function pickedModel(text: string): string | undefined {
  const end = text.indexOf('\n');
  try {
    const header: unknown = JSON.parse(end === -1 ? text : text.slice(0, end));
    const meta = (header as { meta?: { source?: unknown; model?: unknown } } | null)?.meta;
    return meta?.source === 'playground' && typeof meta.model === 'string' ? meta.model : undefined;
  } catch {
    return undefined;
  }
}
