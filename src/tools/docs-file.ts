/**
 * Reading one file of a docs folder for the search tool: never through a symlink swapped in after the
 * folder was listed, and never more than a size cap.
 *
 * @module
 */

import { constants } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';

/** Default for `maxDocumentBytes`: 1 MiB of each document is indexed. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 1024 * 1024;

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads the first `maxBytes` bytes of the regular file `file` (an absolute path inside a real docs
 * folder, as listed) as UTF-8. The file is opened without following a final symlink, and where
 * `/proc/self/fd` exists the descriptor's real path must be `file` itself: a folder on the way swapped
 * for a symlink after listing leads elsewhere, and the file is skipped. Skips and cuts are reported
 * through `warn`, naming the file by `shown` (its path relative to the docs folder).
 *
 * @returns the text, or `undefined` when the file was skipped.
 * @throws {NodeJS.ErrnoException} when the file exists but cannot be read (permissions, I/O).
 */
export async function readDocFile(
  file: string,
  shown: string,
  maxBytes: number,
  warn: (message: string) => void,
): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'ENXIO') {
      warn(`Document ${shown} changed into a symlink or socket after the folder was listed; skipped.`);
      return undefined;
    }
    throw error;
  }
  try {
    const info = await handle.stat();
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => file);
    if (!info.isFile() || opened !== file) {
      warn(`Document ${shown} changed while being read (a folder on its path became a symlink?); skipped.`);
      return undefined;
    }
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    let used = 0;
    while (used < buffer.length) {
      const { bytesRead } = await handle.read(buffer, used, buffer.length - used, used);
      if (bytesRead === 0) break;
      used += bytesRead;
    }
    if (info.size <= maxBytes) return buffer.subarray(0, used).toString('utf8');
    warn(
      `Document ${shown} is ${info.size} bytes; only its first ${maxBytes} bytes are indexed (raise maxDocumentBytes to index more).`,
    );
    // The cut may fall inside a UTF-8 character: drop its replacement character.
    return buffer
      .subarray(0, used)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
  } finally {
    await handle.close();
  }
}
