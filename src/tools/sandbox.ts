/**
 * Running a subprocess the model chose: a bubblewrap (`bwrap`) sandbox over a throwaway copy of the
 * project, with limits on processes, memory, file size and disk, run as an unprivileged user when
 * taoloop itself runs as root.
 *
 * @module
 */

import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { constants } from 'node:fs';
import { access, lstat, mkdir, mkdtemp, readlink, realpath, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyTree, type SkippedFolder } from './safe-copy.js';

export {
  killProcessGroup,
  type ProcessGroupOptions,
  type ProcessGroupResult,
  runProcessGroup,
} from './process-group.js';

/** Folders that are bound read-only into the copy instead of copied: big, and tests only read them. */
export const READ_ONLY_DIR_NAMES: readonly string[] = ['node_modules', '.git'];

/** Top-level host folders the sandbox sees read-only (symlinks among them are recreated as symlinks). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The only `/etc` entries the sandbox sees: enough for the dynamic loader, users and `localhost`. */
const ETC_ENTRIES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'localtime',
  'nsswitch.conf',
  'hosts',
  'passwd',
  'group',
];

/** A host folder seen read-only inside the sandbox at `target`. */
export interface ReadOnlyBind {
  source: string;
  target: string;
}

/**
 * Finds an executable on a `PATH`-style list (or checks an explicit path, when `name` has a `/`).
 *
 * @returns the absolute path as found (not symlink-resolved), or `undefined`.
 */
export async function findExecutable(
  name: string,
  pathEnv: string = process.env.PATH ?? '',
): Promise<string | undefined> {
  const candidates = name.includes('/')
    ? [path.resolve(name)]
    : pathEnv
        .split(path.delimiter)
        .filter((dir) => path.isAbsolute(dir))
        .map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      // A folder is "executable" too (searchable): only a file counts.
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not here; try the next folder.
    }
  }
  return undefined;
}

/** Host folders to bind so that `executable` (an absolute path) runs inside the sandbox; none for system ones. */
export async function bindsForExecutable(executable: string): Promise<string[]> {
  const real = await realpath(executable);
  if (SYSTEM_DIRS.some((dir) => real.startsWith(`${dir}/`))) return [];
  // Interpreters outside /usr (nvm, pyenv, /opt) need their whole prefix (lib/, shims), but never a
  // top-level folder or the home folder, which would expose far more than the runner.
  const prefix = path.dirname(path.dirname(real));
  const tooWide = prefix.split('/').filter(Boolean).length < 2 || prefix === os.homedir();
  return [tooWide ? path.dirname(real) : prefix];
}

const probes = new Map<string, Promise<string | undefined>>();

/**
 * Checks once per `bwrapPath` that bubblewrap can create a sandbox here (user namespaces may be
 * disabled, as on Ubuntu 24.04 with AppArmor's `apparmor_restrict_unprivileged_userns`).
 *
 * @returns `undefined` when it works, else the first line bwrap printed.
 */
export function probeBwrap(bwrapPath: string): Promise<string | undefined> {
  let probe = probes.get(bwrapPath);
  if (!probe) {
    probe = systemArgs().then(
      (args) =>
        new Promise((resolve) => {
          const options = { env: { PATH: '/usr/bin:/bin' }, timeout: 10_000 };
          execFile(bwrapPath, [...args, '--', 'true'], options, (error, _stdout, stderr) => {
            const firstLine = String(stderr).trim().split('\n')[0] || 'bwrap failed';
            resolve(error ? firstLine : undefined);
          });
        }),
    );
    probes.set(bwrapPath, probe);
  }
  return probe;
}

/** True when taoloop runs as root: the sandbox then switches to an unprivileged user of its own. */
export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Namespace and read-only system mounts shared by every sandbox. As root, no user namespace is made
 * (bwrap would map root to root, and root ignores the process limit): the command is started through
 * `setpriv` as an unprivileged user instead (see {@link bwrapArgs}).
 */
async function systemArgs(): Promise<string[]> {
  const args = runningAsRoot()
    ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
    : ['--unshare-all'];
  args.push('--die-with-parent', '--new-session');
  for (const dir of SYSTEM_DIRS) {
    const info = await lstat(dir).catch(() => undefined);
    if (info?.isSymbolicLink()) args.push('--symlink', await readlink(dir), dir);
    else if (info?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  // Folders bwrap makes itself are 0700: the sandbox user must be able to enter /etc.
  args.push('--perms', '0755', '--dir', '/etc');
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  // All of /proc read-only: no kernel setting (/proc/sys), trigger or per-process knob can be written.
  args.push('--proc', '/proc', '--remount-ro', '/proc', '--dev', '/dev');
  return args;
}

/** Resource limits of one sandboxed run (see {@link DEFAULT_SANDBOX_LIMITS}). */
export interface SandboxLimits {
  /** Most processes (and threads) the test may have at once (`RLIMIT_NPROC`). */
  maxProcesses: number;
  /** Most heap and other writable memory per process, in bytes (`RLIMIT_DATA`). */
  maxMemoryBytes: number;
  /** Largest file a process may write, in bytes (`RLIMIT_FSIZE`). */
  maxFileBytes: number;
  /** Size of each writable file system, in bytes: the project copy and `/tmp` are tmpfs of this size. */
  maxDiskBytes: number;
}

/** The limits used unless a caller sets others. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  maxProcesses: 256,
  maxMemoryBytes: 1024 ** 3,
  maxFileBytes: 128 * 1024 ** 2,
  maxDiskBytes: 512 * 1024 ** 2,
});

/** Helpers the sandbox runs inside itself, found on the host `PATH` (util-linux). */
export interface SandboxHelpers {
  /** `prlimit`, which sets the limits. */
  prlimit: string;
  /** `setpriv`, which switches to the sandbox user; needed only when running as root. */
  setpriv?: string;
}

/** What {@link bwrapArgs} mounts besides the system folders. */
export interface SandboxLayout {
  /** Host folder with the throwaway copy; bound read-only and copied into the project's tmpfs inside. */
  copyRoot: string;
  /** Where the project appears inside the sandbox: the real root's own path, so absolute paths still work. */
  mountAt: string;
  /** Folders bound read-only into the project, by the descriptor passed as fd `3 + index`. */
  readOnly: readonly { target: string }[];
  /** Further host folders visible read-only at their own path (the runner's install prefix). */
  extraReadOnly: readonly string[];
  limits: SandboxLimits;
  helpers: SandboxHelpers;
  /** The unprivileged user and group the command runs as when taoloop runs as root. */
  sandboxUser?: { uid: number; gid: number };
}

/** Where the host copy is seen inside the sandbox before it is copied into the project's tmpfs. */
const STAGING = '/run/taoloop-project';

/**
 * The bwrap argument list that runs `argv` in `layout`: its own IPC, PID, network (even loopback is a
 * fresh, empty one) and UTS namespaces, a new session (no terminal injection), death with the parent,
 * `/usr` and the loader's `/etc` files read-only, a read-only `/proc`, minimal `/dev`, and two
 * size-limited tmpfs: `/tmp` and the project at its own path, filled from the copy before the command
 * starts. The command runs under `prlimit` (processes, memory, file size, no core dumps) and, when
 * taoloop runs as root, as `sandboxUser` through `setpriv` (no capabilities, `no_new_privs`).
 */
export async function bwrapArgs(layout: SandboxLayout, argv: readonly string[]): Promise<string[]> {
  const { limits, helpers, mountAt } = layout;
  const args = await systemArgs();
  args.push('--perms', '1777', '--size', String(limits.maxDiskBytes), '--tmpfs', '/tmp');
  const made = new Set(['/', '/tmp', ...SYSTEM_DIRS]);
  // bwrap makes missing parent folders 0700, which the sandbox user could not enter.
  const parents = (target: string) => {
    const chain: string[] = [];
    for (let dir = path.dirname(target); !made.has(dir); dir = path.dirname(dir)) chain.unshift(dir);
    for (const dir of chain) args.push('--perms', '0755', '--dir', dir);
    for (const dir of [...chain, target]) made.add(dir);
  };
  for (const dir of layout.extraReadOnly) {
    parents(dir);
    args.push('--ro-bind', dir, dir);
  }
  parents(STAGING);
  args.push('--ro-bind', layout.copyRoot, STAGING);
  parents(mountAt);
  args.push('--perms', '0777', '--size', String(limits.maxDiskBytes), '--tmpfs', mountAt);
  layout.readOnly.forEach((bind, i) => {
    args.push('--ro-bind-fd', String(3 + i), path.join(mountAt, bind.target));
  });
  args.push('--chdir', mountAt, '--');
  const user = runningAsRoot() ? layout.sandboxUser : undefined;
  if (user) {
    if (!helpers.setpriv) throw new Error('setpriv is needed to run the sandbox as root');
    args.push(helpers.setpriv, `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups');
    args.push('--bounding-set=-all', '--inh-caps=-all', '--no-new-privs', '--');
  }
  args.push(
    helpers.prlimit,
    `--nproc=${limits.maxProcesses}`,
    `--data=${limits.maxMemoryBytes}`,
    `--fsize=${limits.maxFileBytes}`,
    '--core=0',
    '--',
  );
  // The bound descriptors are closed before the test starts: an open host folder would lead out.
  const closeFds = layout.readOnly.map((_, i) => `exec ${3 + i}<&-; `).join('');
  const script = `${closeFds}cp -RP ${STAGING}/. . && exec "$@"`;
  args.push('/bin/sh', '-c', script, 'sh', ...argv);
  return args;
}

/** A fresh unprivileged user and group id for one sandbox, far above any account's (limits count per user). */
export function sandboxUserId(): number {
  return 0x7e00_0000 + randomInt(0x0100_0000);
}

/** A throwaway copy of a project folder; call `cleanup` when done. */
export interface ThrowawayCopy {
  /** The copy's root folder. */
  copyRoot: string;
  /** A scratch folder next to the copy, for `HOME` and `TMPDIR` when running unsandboxed. */
  scratchDir: string;
  /** Skipped folders (see {@link READ_ONLY_DIR_NAMES}), still open, with `target` relative to the root. */
  skipped: readonly SkippedFolder[];
  /** Closes the skipped folders and deletes the copy. */
  cleanup(): Promise<void>;
}

/**
 * Copies `rootReal` to a new temporary folder without following any symlink (see {@link copyTree}):
 * symlinks are kept as they are, FIFOs, sockets and devices left out, and folders named in
 * {@link READ_ONLY_DIR_NAMES} skipped but kept open, to be bound read-only by descriptor.
 *
 * @param maxBytes most bytes of file content copied (each file in whole 4 KiB pages)
 * @param owner owner of the copied entries (the sandbox user when running as root)
 * @param maxFileBytes largest file copied, in bytes (the sandbox's per-file limit); @default no limit
 * @throws {ProjectChangedError} when the project changed under the copy (see {@link copyTree})
 * @throws {CopyTooLargeError} when the files copied exceed `maxBytes`
 * @throws {FileTooLargeError} when a file is larger than `maxFileBytes`
 */
export async function makeThrowawayCopy(
  rootReal: string,
  maxBytes: number,
  owner?: { uid: number; gid: number },
  maxFileBytes?: number,
): Promise<ThrowawayCopy> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-run-'));
  const remove = () => rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
  const copyRoot = path.join(tempDir, 'root');
  const scratchDir = path.join(tempDir, 'scratch');
  try {
    await mkdir(scratchDir);
    const { skipped } = await copyTree(rootReal, copyRoot, {
      skipFolderNames: READ_ONLY_DIR_NAMES,
      maxBytes,
      ...(maxFileBytes !== undefined && { maxFileBytes }),
      ...(owner ? { owner } : {}),
    });
    const cleanup = async () => {
      await Promise.all(skipped.map((folder) => folder.handle.close().catch(() => undefined)));
      await remove();
    };
    return { copyRoot, scratchDir, skipped, cleanup };
  } catch (error) {
    await remove();
    throw error;
  }
}
