/**
 * Writing a trace's lines so that a failed write never leaves half a line and never throws at the writer's
 * caller: each line is one whole write (retried while the system writes part of it), a write that fails
 * part-way is cut back to the line before it, and after a failure nothing more is appended.
 *
 * @module
 */
import * as nodeFs from 'node:fs';

/**
 * The file functions a trace writer uses, with the signatures of `node:fs`'s functions of the same names.
 * Tests pass a copy whose `writeSync` fails, to play a full disk or a removed folder.
 */
export interface TraceFileSystem {
  mkdirSync(path: string, options: { recursive: true }): unknown;
  openSync(path: string, flags: 'a' | 'w'): number;
  /** Writes up to `length` bytes of `buffer` from `offset`; returns how many were written. */
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  /** `size`: the file's length in bytes. */
  fstatSync(fd: number): { size: number };
  ftruncateSync(fd: number, length: number): void;
  closeSync(fd: number): void;
  rmSync(path: string, options: { force: true }): void;
  existsSync(path: string): boolean;
}

/** The file system of Node (`node:fs`). */
export const NODE_TRACE_FS: TraceFileSystem = nodeFs;

/**
 * Why a trace stopped being written: `message` reads `the trace could not be written: <reason>` (the
 * reason names the file), the original error is its `cause`.
 */
export class TraceWriteError extends Error {
  override name = 'TraceWriteError';
  /** The trace file. */
  readonly file: string;
  /** What went wrong, naming the file: `ENOSPC: no space left on device, write (/runs/x.jsonl)`. */
  readonly reason: string;

  /**
   * Makes the error.
   * @param cause the file system's error (its message is kept in {@link reason}).
   */
  constructor(file: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const reason = message.includes(file) ? message : `${message} (${file})`;
    super(`the trace could not be written: ${reason}`, { cause });
    this.file = file;
    this.reason = reason;
  }
}

/**
 * Appends `text` (one or more whole lines) to `file` as one write. When the write fails part-way (a disk
 * that fills up), the file is cut back to its length before it, so it still ends with a whole line (cutting
 * back may itself fail, on a device that cannot be truncated: a reader skips a last line cut short).
 *
 * @param flags - `'a'` to append; `'w'` to replace the file's content (a failed write then removes the
 *   file if it made it).
 * @throws {Error} the file system's error (`ENOSPC`, `ENOENT`, ...) when the line could not be written.
 */
export function writeWholeLines(fs: TraceFileSystem, file: string, text: string, flags: 'a' | 'w'): void {
  const bytes = Buffer.from(text, 'utf8');
  const made = flags === 'w' && !fs.existsSync(file);
  const fd = fs.openSync(file, flags);
  let failed = false;
  try {
    const before = flags === 'w' ? 0 : fs.fstatSync(fd).size;
    let written = 0;
    try {
      while (written < bytes.length) {
        const count = fs.writeSync(fd, bytes, written, bytes.length - written);
        if (!(count > 0))
          throw new Error(`the file system wrote nothing (${written} of ${bytes.length} bytes)`);
        written += count;
      }
    } catch (error) {
      failed = true;
      if (written > 0) {
        try {
          fs.ftruncateSync(fd, before);
        } catch {}
      }
      throw error;
    }
  } finally {
    try {
      fs.closeSync(fd);
    } catch {}
    if (failed && made) {
      try {
        fs.rmSync(file, { force: true });
      } catch {}
    }
  }
}
