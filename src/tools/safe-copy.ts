/**
 * Copying a project folder without following a symlink swapped in while copying.
 *
 * On Linux every folder is opened once (`O_DIRECTORY | O_NOFOLLOW`) and its real path checked on the
 * open descriptor; its entries are then listed, looked at (`lstat`) and opened through
 * `/proc/self/fd/N/name`, i.e. relative to the folder that was checked, never by a path whose parent
 * folders could be swapped for symlinks meanwhile. Files are opened `O_NOFOLLOW` and must still be the
 * regular file that `lstat` saw (same device and inode). Where `/proc/self/fd` does not exist, the same
 * checks run on full paths (a parent swapped between the check and the open is then not caught).
 *
 * @module
 */

import { constants } from 'node:fs';
import {
  access,
  type FileHandle,
  lchown,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  symlink,
} from 'node:fs/promises';
import path from 'node:path';

/** The project changed while it was copied in a way that could lead outside it; nothing was run. */
export class ProjectChangedError extends Error {
  override name = 'ProjectChangedError';
}

/** The copy would exceed its byte limit. */
export class CopyTooLargeError extends Error {
  override name = 'CopyTooLargeError';
}

/**
 * A file of the project is larger than the copy's per-file limit ({@link CopyTreeOptions.maxFileBytes}).
 * `file` is its path relative to the root, `/`-separated; `bytes` its size and `limit` the limit, in bytes.
 */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(
    readonly file: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`${file} is ${bytes} bytes, over the per-file limit of ${limit} bytes.`);
  }
}

/** A folder left out of the copy, still open, so it can be bound read-only without a path lookup. */
export interface SkippedFolder {
  /** Its path relative to the root, `/`-separated. */
  target: string;
  /** Its absolute path when it was opened (for messages and unsandboxed runs only). */
  source: string;
  /** The open folder; closed by the copy's `close`. */
  handle: FileHandle;
}

/** Options for {@link copyTree}. */
export interface CopyTreeOptions {
  /** Folder names (at any depth) left out of the copy but kept open, see {@link SkippedFolder}. */
  skipFolderNames: readonly string[];
  /** Most bytes of file content copied (each file counted in whole 4 KiB pages); more throws. */
  maxBytes: number;
  /**
   * Largest file copied, in bytes: a larger one throws {@link FileTooLargeError} naming it (the sandbox's
   * `RLIMIT_FSIZE` would otherwise kill the copy inside it). @default no limit
   */
  maxFileBytes?: number;
  /** Owner given to every copied entry (when running as root for an unprivileged sandbox user). */
  owner?: { uid: number; gid: number };
}

/** What {@link copyTree} copied. */
export interface CopyTreeResult {
  skipped: SkippedFolder[];
  /** Bytes of file content copied, each file rounded up to whole 4 KiB pages. */
  bytes: number;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const PAGE = 4096;

let procFd: Promise<boolean> | undefined;
function hasProcFd(): Promise<boolean> {
  procFd ??= access('/proc/self/fd').then(
    () => true,
    () => false,
  );
  return procFd;
}

/**
 * Copies `rootReal` (a real path) into the new folder `dest`: folders, regular files and symlinks (kept
 * as symlinks, never followed); FIFOs, sockets and devices are left out. Entries that vanish while copying
 * are left out; an entry that turns into a symlink or another kind of file, or a folder whose real path
 * changed, stops the copy.
 *
 * @throws {ProjectChangedError} when the tree changed under the copy in a way that could lead outside.
 * @throws {CopyTooLargeError} when more than `maxBytes` would be copied.
 * @throws {FileTooLargeError} when a file is larger than `maxFileBytes`.
 */
export async function copyTree(
  rootReal: string,
  dest: string,
  options: CopyTreeOptions,
): Promise<CopyTreeResult> {
  const viaProc = await hasProcFd();
  const skipped: SkippedFolder[] = [];
  const state = { bytes: 0 };
  const pending: { handle: FileHandle; real: string; rel: string }[] = [];
  try {
    const top = await openFolder(rootReal, rootReal, viaProc);
    if (!top) throw changed(rootReal, 'ENOENT');
    pending.push({ handle: top, real: rootReal, rel: '' });
    await mkdir(dest, { recursive: true });
    await chownTo(dest, options);
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      try {
        const base = viaProc ? `/proc/self/fd/${dir.handle.fd}` : dir.real;
        for (const name of await readdir(base)) {
          const entry = {
            from: `${base}/${name}`,
            real: path.join(dir.real, name),
            rel: path.posix.join(dir.rel, name),
          };
          const info = await lstat(entry.from).catch(() => undefined);
          if (!info) continue;
          const to = path.join(dest, entry.rel);
          if (info.isDirectory()) {
            const handle = await openFolder(entry.from, entry.real, viaProc);
            if (!handle) continue;
            if (options.skipFolderNames.includes(name)) {
              skipped.push({ target: entry.rel, source: entry.real, handle });
              continue;
            }
            pending.push({ handle, real: entry.real, rel: entry.rel });
            await mkdir(to, { mode: (info.mode & 0o777) | 0o700 });
            await chownTo(to, options);
          } else if (info.isSymbolicLink()) {
            const target = await readlink(entry.from).catch(() => undefined);
            if (target === undefined) continue;
            await symlink(target, to);
            await chownTo(to, options);
          } else if (info.isFile()) {
            await copyFile(entry.from, entry.rel, to, info, options, state);
          }
        }
      } finally {
        await dir.handle.close();
      }
    }
    return { skipped, bytes: state.bytes };
  } catch (error) {
    await Promise.all([...pending, ...skipped].map((d) => d.handle.close().catch(() => undefined)));
    throw error;
  }
}

/**
 * Opens a folder without following a symlink and checks that its real path is `expected`.
 *
 * @returns the open folder, or `undefined` when it no longer exists.
 */
async function openFolder(from: string, expected: string, viaProc: boolean): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(from, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw changed(expected, code);
  }
  const real = viaProc ? await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined) : expected;
  if (real !== expected) {
    await handle.close();
    throw changed(expected, 'moved');
  }
  return handle;
}

async function copyFile(
  from: string,
  rel: string,
  to: string,
  seen: { dev: number; ino: number; size: number; mode: number },
  options: CopyTreeOptions,
  state: { bytes: number },
): Promise<void> {
  let source: FileHandle;
  try {
    source = await open(from, FILE_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw changed(rel, code);
  }
  try {
    const info = await source.stat();
    if (!info.isFile() || info.dev !== seen.dev || info.ino !== seen.ino) throw changed(rel, 'swapped');
    state.bytes += Math.ceil(Math.max(info.size, 1) / PAGE) * PAGE;
    if (state.bytes > options.maxBytes) {
      throw new CopyTooLargeError(
        `The project is larger than the sandbox's disk limit of ${options.maxBytes} bytes (node_modules and .git are not copied).`,
      );
    }
    // Checked after the disk limit: a project that cannot fit at all is told so first.
    if (options.maxFileBytes !== undefined && info.size > options.maxFileBytes) {
      throw new FileTooLargeError(rel, info.size, options.maxFileBytes);
    }
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const target = await open(to, flags, seen.mode & 0o777);
    try {
      if (options.owner) await target.chown(options.owner.uid, options.owner.gid);
      const buffer = Buffer.alloc(64 * 1024);
      for (let read = await source.read(buffer); read.bytesRead > 0; read = await source.read(buffer)) {
        await target.write(buffer, 0, read.bytesRead);
      }
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function chownTo(to: string, options: CopyTreeOptions): Promise<void> {
  if (options.owner) await lchown(to, options.owner.uid, options.owner.gid);
}

function changed(what: string, code: string | undefined): ProjectChangedError {
  return new ProjectChangedError(
    `The project changed while it was copied (${path.basename(what)}: ${code ?? 'changed'}); no test was run. Try again.`,
  );
}
