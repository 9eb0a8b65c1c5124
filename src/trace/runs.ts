/**
 * The runs folder: where every CLI run's trace is written as it happens, and how runs are listed back.
 *
 * The folder is the project's `.taoloop/runs/` when it exists in the current folder (a project opts in by
 * creating it), else the user's cache: `$TAOLOOP_CACHE_DIR/runs`, `$XDG_CACHE_HOME/taoloop/runs` or
 * `~/.cache/taoloop/runs`. File names are `<ISO time>-<short id>.jsonl` with `:` written as `-` (so they
 * are valid on every file system and still sort by time); a run of a conversation has the conversation's
 * key after the time, `<ISO time>.<key>-<short id>.jsonl`, so a conversation's traces are found by their
 * names alone (see {@link conversationKey}).
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseTrace, readTraceText } from './trace.js';

/** The runs folder for `cwd` and `env` (it may not exist yet). */
export function runsFolder(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const project = join(cwd, '.taoloop', 'runs');
  if (existsSync(project)) return project;
  const nonEmpty = (v: string | undefined) => (v?.trim() ? v : undefined);
  const taoloopCache = nonEmpty(env.TAOLOOP_CACHE_DIR);
  if (taoloopCache) return join(resolve(taoloopCache), 'runs');
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  return join(xdg ? resolve(xdg) : join(homedir(), '.cache'), 'taoloop', 'runs');
}

/**
 * A new trace file name in `folder`: `2025-05-01T09-30-00.123Z-3fa9c1.jsonl`, or for a run of conversation
 * `conversationId`, `2025-05-01T09-30-00.123Z.<its key>-3fa9c1.jsonl` (see {@link conversationKey}).
 */
export function newRunFile(folder: string, now: Date = new Date(), conversationId?: string): string {
  const time = now.toISOString().replace(/:/g, '-');
  const key = conversationId === undefined ? '' : `.${conversationKey(conversationId)}`;
  return join(folder, `${time}${key}-${randomBytes(3).toString('hex')}.jsonl`);
}

/**
 * The key of conversation `conversationId` in trace file names: 16 hex digits of its SHA-256, whatever
 * the id holds. A name says where to look, not what is there: a reader checks the trace's own header.
 */
export function conversationKey(conversationId: string): string {
  return createHash('sha256').update(conversationId).digest('hex').slice(0, 16);
}

/** One line of `taoloop runs`. */
export interface RunSummary {
  file: string;
  /** The file name without `.jsonl`. */
  id: string;
  /**
   * The six hex digits at the end of the file name (`3fa9c1`): what `taoloop runs` shows and what `trace`,
   * `replay` and `run --continue` accept. The whole id when the name has no such ending.
   */
  shortId: string;
  /** ISO time the run started (from the header, else the file's modification time). */
  startedAt: string;
  question: string;
  modelId: string;
  /**
   * The stop reason; `crashed` for a trace that ends with a `run-error` line, `incomplete` for one that
   * simply stops (killed, or still running), `unreadable` for a file that is not a trace.
   */
  status: string;
  steps: number;
  /** Input plus output tokens, when any step reported them. */
  tokens?: number;
  costUsd?: number;
  /** Why the file could not be read (status `unreadable`). */
  problem?: string;
}

/** The `.jsonl` files of `folder`, newest first (by name, which starts with the time; then by mtime). */
export function runFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const mtime = (name: string) => {
    try {
      return statSync(join(folder, name)).mtimeMs;
    } catch {
      return 0;
    }
  };
  return names
    .map((name) => ({ name, mtimeMs: mtime(name) }))
    .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : b.mtimeMs - a.mtimeMs))
    .map(({ name }) => join(folder, name));
}

/** The short id of a run id or trace file name: its trailing six hex digits, else the id itself. */
export function shortRunId(idOrFile: string): string {
  const id = basename(idOrFile, '.jsonl');
  return /-([0-9a-f]{6})$/.exec(id)?.[1] ?? id;
}

/**
 * Summarises one trace file; never throws (a broken file is reported as `unreadable`).
 *
 * @param read - Reads the file's text (the playground reads only regular files in its folder, never
 *   through a symbolic link). @default readTraceText (a regular file, a symbolic link followed)
 */
export function summarizeRun(file: string, read: (file: string) => string = readTraceText): RunSummary {
  const id = basename(file, '.jsonl');
  const shortId = shortRunId(id);
  try {
    const trace = parseTrace(read(file), file);
    const { header } = trace;
    // A trace is data: a field of the wrong type is left out (a number) or `?` (a text).
    const result = isRecord(trace.result) ? trace.result : undefined;
    const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
    const steps = list(result?.steps ?? trace.steps);
    const numbers = (usage: unknown) => {
      const u = isRecord(usage) ? usage : {};
      return [u.inputTokens, u.outputTokens].filter(finite);
    };
    const tokens = result
      ? numbers(result.usage)
      : steps.flatMap((s) => (isRecord(s) ? numbers(s.usage) : []));
    const cost = result?.costUsd;
    return {
      file,
      id,
      shortId,
      startedAt: text(header.startedAt),
      question: text(header.question),
      modelId: text(header.modelId),
      status: result ? text(result.status) : trace.error === undefined ? 'incomplete' : 'crashed',
      steps: steps.length,
      ...(tokens.length > 0 && { tokens: tokens.reduce((a, b) => a + b, 0) }),
      ...(finite(cost) && { costUsd: cost }),
    };
  } catch (error) {
    let startedAt = '';
    try {
      startedAt = statSync(file).mtime.toISOString();
    } catch {}
    const problem = error instanceof Error ? error.message : String(error);
    return {
      file,
      id,
      shortId,
      startedAt,
      question: '',
      modelId: '',
      status: 'unreadable',
      steps: 0,
      problem,
    };
  }
}

/** The newest `limit` runs of `folder`, newest first. */
export function listRuns(folder: string, limit = 20): RunSummary[] {
  return runFiles(folder)
    .slice(0, limit)
    .map((file) => summarizeRun(file));
}

/**
 * Finds a run by path, or by id in `folder`: the whole file name, the name without `.jsonl`, or its
 * trailing short id (`3fa9c1`). `last` is the newest run.
 *
 * @returns the file, or `undefined` when nothing matches.
 */
export function findRun(ref: string, folder: string, cwd: string = process.cwd()): string | undefined {
  const asPath = resolve(cwd, ref);
  if (existsSync(asPath) && statSync(asPath).isFile()) return asPath;
  const files = runFiles(folder);
  if (ref === 'last') return files[0];
  const name = ref.endsWith('.jsonl') ? ref : `${ref}.jsonl`;
  return files.find((f) => basename(f) === name) ?? files.find((f) => basename(f).endsWith(`-${name}`));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A text field of a trace as it is, or `?` when it holds something else. */
const text = (value: unknown): string => (typeof value === 'string' ? value : '?');
