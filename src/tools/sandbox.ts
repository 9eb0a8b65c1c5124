/**
 * Running a subprocess the model chose: a bubblewrap (`bwrap`) sandbox over a throwaway copy of the
 * project, and a process-group runner that kills everything the process started.
 *
 * @module
 */

import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, cp, lstat, mkdir, mkdtemp, readlink, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

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
      await access(candidate, constants.X_OK);
      return candidate;
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

/** Namespace, capability and read-only system mounts shared by every sandbox. */
async function systemArgs(): Promise<string[]> {
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
  // Root keeps its capabilities inside bwrap unless told otherwise; other users have none to drop.
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  for (const dir of SYSTEM_DIRS) {
    const info = await lstat(dir).catch(() => undefined);
    if (info?.isSymbolicLink()) args.push('--symlink', await readlink(dir), dir);
    else if (info?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  return args;
}

/** What {@link bwrapArgs} mounts besides the system folders. */
export interface SandboxLayout {
  /** Host folder mounted read-write at `mountAt`: the throwaway copy. */
  copyRoot: string;
  /** Where the project appears inside the sandbox: the real root's own path, so absolute paths still work. */
  mountAt: string;
  /** Folders bound read-only into the copy (see {@link READ_ONLY_DIR_NAMES}). */
  readOnly: readonly ReadOnlyBind[];
  /** Further host folders visible read-only at their own path (the runner's install prefix). */
  extraReadOnly: readonly string[];
}

/**
 * The bwrap argument list that runs `argv` in `layout`: every namespace unshared (no network: even
 * loopback is a fresh, empty one), no capabilities, `/usr` and the loader's `/etc` files read-only, a
 * fresh `/proc`, minimal `/dev` and empty `/tmp`, the copy read-write at the project's path, a new
 * session (no terminal injection) and death with the parent (killing bwrap ends everything inside).
 */
export async function bwrapArgs(layout: SandboxLayout, argv: readonly string[]): Promise<string[]> {
  const args = await systemArgs();
  for (const dir of layout.extraReadOnly) args.push('--ro-bind', dir, dir);
  args.push('--bind', layout.copyRoot, layout.mountAt);
  for (const bind of layout.readOnly) args.push('--ro-bind', bind.source, bind.target);
  args.push('--chdir', layout.mountAt, '--', ...argv);
  return args;
}

/** A throwaway copy of a project folder; call `cleanup` when done. */
export interface ThrowawayCopy {
  /** The copy's root folder. */
  copyRoot: string;
  /** A scratch folder next to the copy, for `HOME` and `TMPDIR` when running unsandboxed. */
  scratchDir: string;
  /** Skipped folders, with `target` relative to the root. */
  skipped: ReadOnlyBind[];
  cleanup(): Promise<void>;
}

/**
 * Copies `rootReal` to a new temporary folder, keeping symlinks as they are, leaving out FIFOs, sockets
 * and devices, and skipping (but listing) folders named in {@link READ_ONLY_DIR_NAMES}.
 */
export async function makeThrowawayCopy(rootReal: string): Promise<ThrowawayCopy> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-run-'));
  const cleanup = () => rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
  const copyRoot = path.join(tempDir, 'root');
  const scratchDir = path.join(tempDir, 'scratch');
  const skipped: ReadOnlyBind[] = [];
  try {
    await mkdir(scratchDir);
    await cp(rootReal, copyRoot, {
      recursive: true,
      verbatimSymlinks: true,
      filter: async (source) => {
        const info = await lstat(source);
        if (
          info.isDirectory() &&
          source !== rootReal &&
          READ_ONLY_DIR_NAMES.includes(path.basename(source))
        ) {
          skipped.push({ source, target: path.relative(rootReal, source) });
          return false;
        }
        return info.isDirectory() || info.isFile() || info.isSymbolicLink();
      },
    });
    return { copyRoot, scratchDir, skipped, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * Sends `signal` to the whole process group led by `pid` (started with `detached: true`).
 * A group that is already gone is not an error.
 */
export function killProcessGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to kill.
  }
}

/** Options for {@link runProcessGroup}. */
export interface ProcessGroupOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment: nothing of the caller's is inherited (it may hold API keys). */
  env: Record<string, string>;
  /** Milliseconds before the group is killed. */
  timeoutMs: number;
  /** Aborting kills the group. */
  signal?: AbortSignal;
  /** Bytes of combined stdout and stderr kept, from the end. */
  maxTailBytes: number;
}

/** How a process group run ended. */
export interface ProcessGroupResult {
  /** Exit code, or `null` when a signal ended it. */
  exitCode: number | null;
  signalName: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The last `maxTailBytes` bytes of output, as UTF-8 text. */
  tail: string;
  /** Output bytes dropped from the front. */
  droppedBytes: number;
}

/**
 * Runs a command as the leader of a new process group and waits for it. On timeout or abort, and again
 * once the leader exits (to end background processes it left), the whole group gets SIGKILL. Only a
 * rolling tail of the output is kept, so a chatty process cannot fill memory.
 *
 * @throws {Error} when the command cannot be started (the message names the command).
 */
export function runProcessGroup(options: ProcessGroupOptions): Promise<ProcessGroupResult> {
  return new Promise((resolve, reject) => {
    const tail = new TailBuffer(options.maxTailBytes);
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    const kill = () => killProcessGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      done();
      reject(
        new Error(`Could not start ${path.basename(options.command)} (${error.code ?? error.message}).`),
      );
    });
    child.on('exit', (exitCode, signalName) => {
      kill();
      // Output still buffered in the pipes arrives before 'close'; a process that escaped the group could
      // hold them open forever, so stop waiting after a moment.
      const grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 1000);
      child.once('close', () => {
        clearTimeout(grace);
        done();
        const { text, dropped } = tail.read();
        resolve({ exitCode, signalName, timedOut, aborted, tail: text, droppedBytes: dropped });
      });
    });
  });
}

/** Keeps the last `max` bytes pushed into it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.max) {
      const first = this.chunks.shift()!;
      this.size -= first.length;
      this.dropped += first.length;
    }
  }

  read(): { text: string; dropped: number } {
    const all = Buffer.concat(this.chunks);
    const cut = Math.max(all.length - this.max, 0);
    // The cut may land inside a UTF-8 character; drop its replacement character.
    const text = all
      .subarray(cut)
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
    return { text, dropped: this.dropped + cut };
  }
}
