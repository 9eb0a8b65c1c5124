/**
 * The built-in `run_tests` tool: runs one test file of the project in a sandbox and reports the exit
 * code and the end of the output.
 *
 * @module
 */

import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolConfigError } from './router.js';
import { describeFileTooLarge, formatResult } from './run-tests-result.js';
import { CopyTooLargeError, FileTooLargeError, ProjectChangedError } from './safe-copy.js';
import {
  openRegularFile,
  PathRefusedError,
  resolveRoot,
  resolveSafePath,
  type SafePathOptions,
} from './safe-path.js';
import {
  bindsForExecutable,
  bwrapArgs,
  DEFAULT_SANDBOX_LIMITS,
  findExecutable,
  makeThrowawayCopy,
  type ProcessGroupResult,
  probeBwrap,
  runningAsRoot,
  runProcessGroup,
  type SandboxHelpers,
  type SandboxLimits,
  sandboxUserId,
  type ThrowawayCopy,
} from './sandbox.js';
import type { Tool, ToolContext } from './types.js';

/** Test file names `run_tests` accepts unless told otherwise (`*` is the only wildcard). */
export const DEFAULT_TEST_PATTERNS: readonly string[] = ['test_*.py', '*.test.ts', '*.test.js'];

/** Default for {@link RunTestsToolOptions.timeoutMs}. */
export const DEFAULT_TEST_TIMEOUT_MS = 60_000;

/** Default for {@link RunTestsToolOptions.maxOutputChars}. */
export const DEFAULT_TEST_MAX_OUTPUT_CHARS = 2000;

/** Runner argv prefixes by test file extension, used when no `runner` is given. */
const DEFAULT_RUNNERS: Readonly<Record<string, readonly string[]>> = {
  '.py': ['python3', '-m', 'pytest', '-q'],
  '.js': ['node', '--test'],
  '.mjs': ['node', '--test'],
  '.cjs': ['node', '--test'],
  '.ts': ['node', '--import', 'tsx', '--test'],
};

/** The tool createRunTestsTool makes: a plain {@link Tool} whose `run` takes the path text and resolves to the observation. */
export interface RunTestsTool extends Tool {
  run(input: string, context: ToolContext): Promise<string>;
}

/** Options for {@link createRunTestsTool}. */
export interface RunTestsToolOptions {
  /** Project folder; test paths are relative to it. Resolved (symlinks too) once, at creation. */
  root: string;
  /**
   * Command and leading arguments; the test file (`./relative/path`) is appended. The command is looked
   * up on the host `PATH` (or is a path); when it lives outside `/usr`, its install prefix (nvm, pyenv,
   * `/opt/x`) is bound read-only into the sandbox.
   * @default by extension: `python3 -m pytest -q` (.py), `node --test` (.js), `node --import tsx --test` (.ts)
   */
  runner?: readonly string[];
  /** Accepted test file names; `*` matches any characters (`/` excepted). @default DEFAULT_TEST_PATTERNS */
  patterns?: readonly string[];
  /** Milliseconds before the test and everything it started are killed. @default 60000 */
  timeoutMs?: number;
  /** Run tests directly (own process group, throwaway copy, but network and host files reachable) when bubblewrap is missing or unusable. @default false */
  allowUnsandboxed?: boolean;
  /** Characters of output kept, from the end. @default 2000 */
  maxOutputChars?: number;
  /** Path of the `bwrap` executable. @default the one found on `PATH` */
  bwrapPath?: string;
  /** Allow test paths with segments starting with `.`. @default false */
  allowHidden?: boolean;
  /**
   * Resource limits inside the sandbox; unset fields keep their default. Not applied to unsandboxed runs.
   * @default DEFAULT_SANDBOX_LIMITS: 256 processes, 1 GiB of memory per process, 128 MiB per file, 512 MiB tmpfs for the project and for /tmp
   */
  limits?: Partial<SandboxLimits>;
}

/**
 * Creates `run_tests`: the model writes `run_tests[relative/path/to/x.test.js]` and sees
 * `exit code N` and the last `maxOutputChars` characters of combined stdout and stderr.
 *
 * The path is checked like `read_file`'s (see `resolveSafePath`); its file name must match a
 * pattern. Each run copies the root to a new temporary folder (symlinks kept, FIFOs and sockets left out,
 * `node_modules` and `.git` not copied but bound read-only) and runs the runner under bubblewrap with the
 * copy mounted read-write at the root's own path: no network (a fresh network namespace, loopback
 * included), no other host files but `/usr` and the loader's `/etc` files, a read-only `/proc`, an empty
 * `/tmp`, and an environment of its own (no API keys). Writes by the test land in a size-limited tmpfs
 * holding the copy, which is gone after the run. The test runs under `limits` (processes, memory per
 * process, file size, disk) and, when taoloop runs as root, as a fresh unprivileged user (so it cannot
 * write kernel settings, and the process limit applies). The copy never follows a symlink (see
 * `copyTree`). On timeout or abort, the sandbox and every process in it are killed.
 *
 * Without a working `bwrap` the tool refuses to run, unless `allowUnsandboxed`; then it runs the
 * runner in the copy as its own process group, and the output starts with `[unsandboxed]`.
 *
 * `effects: 'write'`: it executes project code, so it needs approval, even though writes are thrown away.
 *
 * @throws {ToolConfigError} when the root is missing or not a folder, or a number option is not positive.
 */
export function createRunTestsTool(options: RunTestsToolOptions): RunTestsTool {
  const rootReal = resolveRoot(options?.root, 'run_tests');
  const timeoutMs = positive(options.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS, 'timeoutMs');
  const maxOutputChars = positive(options.maxOutputChars ?? DEFAULT_TEST_MAX_OUTPUT_CHARS, 'maxOutputChars');
  const patterns = options.patterns ?? DEFAULT_TEST_PATTERNS;
  const safeOptions = { allowHidden: options.allowHidden ?? false };
  const limits = sandboxLimits(options.limits);
  return {
    name: 'run_tests',
    description: `Runs one test file (${patterns.join(', ')}) of the project in a sandbox and shows the exit code and the end of the output. Input: its path relative to the project folder.`,
    inputHint: 'relative/path',
    effects: 'write',
    maxInputChars: 1024,
    maxOutputChars: maxOutputChars + 200,
    // Copying the project comes before the test's own clock starts.
    timeoutMs: timeoutMs + 30_000,
    async run(input, { signal }) {
      const relativePath = await resolveTestFile(rootReal, String(input).trim(), patterns, safeOptions);
      const name = path.posix.basename(relativePath);
      const runner = options.runner ?? DEFAULT_RUNNERS[path.posix.extname(name).toLowerCase()];
      if (!runner || runner.length === 0) {
        throw new PathRefusedError(`No test runner is configured for "${name}": run a .py, .js or .ts test.`);
      }
      const mode = await chooseMode(options);
      const user = mode.kind === 'bwrap' && runningAsRoot() ? sandboxUserId() : undefined;
      const owner = user === undefined ? undefined : { uid: user, gid: user };
      const sandboxed = mode.kind === 'bwrap';
      const maxBytes = sandboxed ? limits.maxDiskBytes : Number.POSITIVE_INFINITY;
      const maxFileBytes = sandboxed ? limits.maxFileBytes : undefined;
      const copy = await makeThrowawayCopy(rootReal, maxBytes, owner, maxFileBytes).catch(
        (error: NodeJS.ErrnoException) => {
          if (error instanceof ProjectChangedError) throw error;
          if (error instanceof CopyTooLargeError) {
            throw new Error(`${error.message} No test was run; the caller can raise limits.maxDiskBytes.`);
          }
          if (error instanceof FileTooLargeError) throw new Error(describeFileTooLarge(error));
          // fs messages name absolute host paths; the model only needs to know that nothing ran.
          throw new Error(
            `Could not copy the project for the test run (${error.code ?? 'error'}); no test was run.`,
          );
        },
      );
      try {
        const argv = [...runner, `./${relativePath}`];
        const run = {
          rootReal,
          copy,
          argv,
          timeoutMs,
          maxTailBytes: maxOutputChars * 4,
          signal,
          limits,
          owner,
        };
        const result = await runInMode(mode, run);
        if (result.aborted) throw new Error('run_tests was cancelled; the test processes were killed.');
        return formatResult(result, { sandbox: sandboxed ? limits : undefined, timeoutMs, maxOutputChars });
      } finally {
        await copy.cleanup();
      }
    },
  };
}

/**
 * Checks the model's input: a safe path (see `resolveSafePath`) to a regular file whose name, as
 * written and as resolved, matches a pattern.
 *
 * @returns the file's real path relative to the root, `/`-separated.
 */
async function resolveTestFile(
  rootReal: string,
  input: string,
  patterns: readonly string[],
  safeOptions: SafePathOptions,
): Promise<string> {
  const shown = JSON.stringify(input.slice(0, 80));
  // Newer runners expand globs in file arguments; one literal file is all the model may name.
  if (/[*?[\]{}]/.test(input)) {
    throw new PathRefusedError(`Wildcards are refused (${shown}): give one test file.`);
  }
  const safe = await resolveSafePath(rootReal, input, safeOptions);
  const matchers = patterns.map(globToRegExp);
  const names = [path.posix.basename(input), path.posix.basename(safe.relativePath)];
  if (!matchers.some((m) => names.every((name) => m.test(name)))) {
    throw new PathRefusedError(`${shown} is not a test file: its name must match ${patterns.join(', ')}.`);
  }
  await (await openRegularFile(rootReal, safe)).handle.close();
  return safe.relativePath;
}

type Mode = { kind: 'bwrap'; bwrapPath: string; helpers: SandboxHelpers } | { kind: 'direct' };

/** Decides between the sandbox and (only when allowed) a direct run. */
async function chooseMode(options: RunTestsToolOptions): Promise<Mode> {
  const bwrapPath = await findExecutable(options.bwrapPath ?? 'bwrap');
  const prlimit = await findExecutable('prlimit');
  const setpriv = runningAsRoot() ? await findExecutable('setpriv') : undefined;
  const problem = !bwrapPath
    ? 'bubblewrap (bwrap) is not installed'
    : !prlimit || (runningAsRoot() && !setpriv)
      ? 'prlimit and setpriv (util-linux) are needed for its limits and are not installed'
      : await probeBwrap(bwrapPath);
  if (bwrapPath && prlimit && problem === undefined) {
    return { kind: 'bwrap', bwrapPath, helpers: { prlimit, ...(setpriv ? { setpriv } : {}) } };
  }
  if (options.allowUnsandboxed) return { kind: 'direct' };
  throw new Error(
    `run_tests needs a sandbox and ${bwrapPath ? `bubblewrap cannot create one here (${problem})` : problem}; ` +
      'no test was run. The caller can install bubblewrap or create the tool with allowUnsandboxed: true.',
  );
}

/** One test run's settings, for {@link runInMode}. */
interface RunSettings {
  rootReal: string;
  copy: ThrowawayCopy;
  argv: readonly string[];
  timeoutMs: number;
  maxTailBytes: number;
  signal: AbortSignal;
  limits: SandboxLimits;
  owner: { uid: number; gid: number } | undefined;
}

/** Runs `argv` in the copy, sandboxed or directly. */
async function runInMode(mode: Mode, run: RunSettings): Promise<ProcessGroupResult> {
  const { copy, rootReal } = run;
  const [command, ...rest] = run.argv as [string, ...string[]];
  const executable = await findExecutable(command);
  if (!executable) throw new Error(`The test runner "${command}" is not installed; no test was run.`);
  const env = {
    HOME: '/tmp',
    TMPDIR: '/tmp',
    USER: 'sandbox',
    LOGNAME: 'sandbox',
    LANG: 'C.UTF-8',
    CI: 'true',
    NO_COLOR: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const common = { timeoutMs: run.timeoutMs, signal: run.signal, maxTailBytes: run.maxTailBytes };
  if (mode.kind === 'direct') {
    for (const bind of copy.skipped) await symlink(bind.source, path.join(copy.copyRoot, bind.target));
    const direct = { ...env, HOME: copy.scratchDir, TMPDIR: copy.scratchDir, PATH: process.env.PATH ?? '' };
    return runProcessGroup({ ...common, command: executable, args: rest, cwd: copy.copyRoot, env: direct });
  }
  const layout = {
    copyRoot: copy.copyRoot,
    mountAt: rootReal,
    readOnly: copy.skipped,
    extraReadOnly: await bindsForExecutable(executable),
    limits: run.limits,
    helpers: mode.helpers,
    ...(run.owner ? { sandboxUser: run.owner } : {}),
  };
  const args = await bwrapArgs(layout, [executable, ...rest]);
  const sandboxPath = [path.dirname(executable), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
  return runProcessGroup({
    ...common,
    command: mode.bwrapPath,
    args,
    cwd: copy.scratchDir,
    env: { ...env, PATH: sandboxPath },
    passFds: copy.skipped.map((folder) => folder.handle.fd),
  });
}

/** A test file name pattern: `*` matches any characters, everything else itself. */
function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]*')}$`);
}

/** {@link DEFAULT_SANDBOX_LIMITS} with the caller's fields, each a positive whole number. */
function sandboxLimits(given: Partial<SandboxLimits> | undefined): SandboxLimits {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ToolConfigError(`run_tests limits.${name} must be a positive whole number, not ${value}.`);
    }
  }
  return limits;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ToolConfigError(`run_tests ${name} must be a positive number, not ${value}.`);
  }
  return value;
}
