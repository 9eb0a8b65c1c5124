/**
 * Trace fixtures on disk: finding them, checking one ({@link checkTrace}), and accepting today's behaviour
 * into it (`update`), like a snapshot.
 *
 * `node:fs` is imported when a function runs, never at import time, so `taoloop/testing` stays bundleable
 * for a browser; these functions themselves need Node, Deno or Bun.
 *
 * @module
 */

import { parseTrace, TRACE_FORMAT, TraceFormatError } from '../trace/trace-format.js';
import { importAtRunTime } from '../util/runtime-import.js';
import { checkTrace, type TraceCheck, type TraceCheckOptions } from './trace-check.js';

type Fs = typeof import('node:fs/promises');
const fsPromises = () => importAtRunTime<Fs>('node:fs/promises');

/** Options for {@link checkTraceFile}: {@link TraceCheckOptions}, plus `update`. */
export type TraceFileCheckOptions<O = unknown> = TraceCheckOptions<O> & {
  /**
   * Accept today's behaviour: when the check fails, the file is replaced (atomically: a new file renamed
   * over it) by today's run of the recorded turns, so the next check passes.
   * @default false
   */
  update?: boolean;
};

/** What {@link checkTraceFile} found, and whether it rewrote the file. */
export interface TraceFileCheck<O = unknown> extends TraceCheck<O> {
  file: string;
  /** True when `update` replaced the file with today's run. */
  updated: boolean;
}

/**
 * Checks the trace file `file` ({@link checkTrace}); with `update`, a failing one is replaced by today's run.
 *
 * @throws {TraceFormatError} when the file is not a taoloop trace or not a regular file; the file system's
 *   error when it cannot be read or (with `update`) written.
 * @example
 * ```ts
 * import { checkTraceFile, formatTraceCheck } from 'taoloop/testing';
 * test('the weather run still replays', async () => {
 *   const check = await checkTraceFile('test/traces/weather.jsonl', { tools: [weather] });
 *   assert.ok(check.passed, formatTraceCheck(check, check.file));
 * });
 * ```
 */
export async function checkTraceFile<O = unknown>(
  file: string,
  options: TraceFileCheckOptions<O> = { tools: [] },
): Promise<TraceFileCheck<O>> {
  const { update = false, ...rest } = options;
  const check = await checkTrace<O>(parseTrace(await readRegularFile(file), file), rest);
  if (!update || check.passed) return { ...check, file, updated: false };
  const fs = await fsPromises();
  const next = `${file}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    await fs.writeFile(next, check.updatedTrace, { flag: 'wx' });
    await fs.rename(next, file);
  } catch (error) {
    await fs.rm(next, { force: true });
    throw error;
  }
  return { ...check, file, updated: true };
}

/**
 * The trace files among `paths`: each file as given (it must be a trace), and every `*.jsonl` under each
 * folder (recursively) whose first line is a taoloop trace header; sorted by path within a folder.
 *
 * @throws {TraceFormatError} for a file given by name that is not a trace; the file system's error for a
 *   path that does not exist.
 */
export async function findTraceFiles(paths: readonly string[]): Promise<string[]> {
  const fs = await fsPromises();
  const found: string[] = [];
  for (const path of paths) {
    if ((await fs.stat(path)).isDirectory()) {
      // Symbolic links are not followed (a link could lead out of the folder, or round in a loop).
      // `parentPath` is Node 20.12's name; 20.6 to 20.11 call it `path`.
      const entries = await fs.readdir(path, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
        .map(
          (entry) =>
            `${(entry.parentPath ?? (entry as { path?: string }).path ?? path).replace(/\/+$/, '')}/${entry.name}`,
        )
        .sort();
      for (const file of files) if (await isTraceFile(file)) found.push(file);
    } else if (await isTraceFile(path)) found.push(path);
    else
      throw new TraceFormatError(
        `${path} is not a taoloop trace (its first line has no "format": "${TRACE_FORMAT}").`,
      );
  }
  return found;
}

/** True when the file is a regular file whose first line is a taoloop trace header (only its start is read). */
export async function isTraceFile(file: string): Promise<boolean> {
  const first = await firstLine(file);
  if (first === undefined) return false;
  try {
    const header = JSON.parse(first) as { type?: unknown; format?: unknown };
    return header.type === 'trace-start' && header.format === TRACE_FORMAT;
  } catch {
    return false;
  }
}

/** The first line of a regular file, from its first 64 KiB; `undefined` for anything but a regular file. */
async function firstLine(file: string): Promise<string | undefined> {
  const [fs, { constants }] = await Promise.all([
    fsPromises(),
    importAtRunTime<typeof import('node:fs')>('node:fs'),
  ]);
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buffer = new Uint8Array(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return new TextDecoder().decode(buffer.subarray(0, bytesRead)).split('\n', 1)[0] ?? '';
  } finally {
    await handle.close();
  }
}

/** A regular file's text (a FIFO or device would block or never end). */
async function readRegularFile(file: string): Promise<string> {
  const [fs, { constants }] = await Promise.all([
    fsPromises(),
    importAtRunTime<typeof import('node:fs')>('node:fs'),
  ]);
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new TraceFormatError(`${file} is not a regular file.`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
