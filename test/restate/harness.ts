/**
 * Test harness for Restate: a `restate-server` on 127.0.0.1 with a temp base dir and free ports, worker
 * child processes, and bounded polling. Every process started here is killed by `close()`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { waitFor } from '../helpers/wait.js';

export { waitFor };

const WORKER_FIXTURE = fileURLToPath(new URL('./fixtures/agent-worker.ts', import.meta.url));

/** The restate-server binary from `@restatedev/restate-server`'s platform package. */
export function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  return require.resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`);
}

/** A free TCP port on 127.0.0.1 (the OS picks; released before use). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/** SIGKILLs a process group (the children are spawned detached, each leading its own group). */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A Restate server and the workers of one test. */
export interface RestateHarness {
  ingressUrl: string;
  adminUrl: string;
  /** Folder shared by the test and its workers (execution counters). */
  dir: string;
  /** Starts a worker process (the agent-worker fixture) on `port`; resolves once it listens. */
  startWorker(port: number, env?: Record<string, string>): Promise<ChildProcess>;
  /** Runs `node --import tsx ...args`; resolves once its stdout or stderr contains `ready`. */
  spawnNode(args: string[], env: Record<string, string>, ready: string): Promise<ChildProcess>;
  /** SIGKILLs a worker and waits for it to exit. */
  killWorker(worker: ChildProcess): Promise<void>;
  /** The server's log so far (for failure messages). */
  log(): string;
  close(): Promise<void>;
}

/**
 * Starts `restate-server` with a temp base dir on free 127.0.0.1 ports and waits until it is healthy.
 * `env` adds or overrides its `RESTATE_*` settings.
 */
export async function startRestate(env: Record<string, string> = {}): Promise<RestateHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'taoloop-restate-'));
  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const children = new Set<ChildProcess>();
  // If the test process ends without close() (a crash, a runner timeout), take the children with it.
  const killAll = () => {
    for (const child of children)
      if (child.pid !== undefined && child.exitCode === null) killGroup(child.pid);
  };
  process.once('exit', killAll);
  let serverLog = '';
  const server = spawn(
    restateServerBinary(),
    ['--base-dir', join(dir, 'restate-data'), '--node-name', 'test', '--no-logo', '--log-format', 'compact'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        RESTATE_LISTEN_MODE: 'tcp',
        RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
        RESTATE_DISABLE_TELEMETRY: 'true',
        RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
        RESTATE_DEFAULT_NUM_PARTITIONS: '1',
        // Retry a lost worker quickly, so a restarted one picks the run up within a second.
        RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: '100ms',
        RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '500ms',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  children.add(server);
  const collect = (chunk: Buffer) => {
    serverLog = (serverLog + chunk.toString()).slice(-20_000);
  };
  server.stdout?.on('data', collect);
  server.stderr?.on('data', collect);
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const adminUrl = `http://127.0.0.1:${admin}`;

  const harness: RestateHarness = {
    ingressUrl,
    adminUrl,
    dir,
    log: () => serverLog,
    startWorker: (port, env = {}) =>
      harness.spawnNode([WORKER_FIXTURE], { TAOLOOP_TEST_PORT: String(port), ...env }, 'listening'),
    async spawnNode(args, env, ready) {
      const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
        env: { ...process.env, TAOLOOP_TEST_DIR: dir, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      children.add(child);
      let output = '';
      const collectOutput = (chunk: Buffer) => {
        output += chunk.toString();
      };
      child.stdout?.on('data', collectOutput);
      child.stderr?.on('data', collectOutput);
      // Generous: on a loaded machine, tsx compiling a worker (or two replicas) takes tens of seconds.
      await waitFor(
        `"${ready}" from ${args.join(' ')}`,
        () => {
          if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}): ${output}`);
          return output.includes(ready);
        },
        { timeoutMs: 60_000 },
      );
      return child;
    },
    async killWorker(worker) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      if (worker.exitCode === null && worker.signalCode === null) {
        process.kill(-(worker.pid as number), 'SIGKILL');
        await exited;
      }
      children.delete(worker);
    },
    async close() {
      for (const child of children) {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        killGroup(child.pid);
        await exited;
      }
      children.clear();
      process.off('exit', killAll);
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await waitFor('restate-server health', async () => {
      if (server.exitCode !== null) throw new Error(`restate-server exited: ${serverLog}`);
      const [adminOk, ingressOk] = await Promise.all([
        fetch(`${adminUrl}/health`).then((r) => r.ok),
        fetch(`${ingressUrl}/restate/health`).then((r) => r.ok),
      ]);
      return adminOk && ingressOk;
    });
  } catch (error) {
    await harness.close();
    throw error;
  }
  return harness;
}

/** The status of the invocation of `target` (`<service>/<key>/<handler>`), from the admin SQL API. */
export async function invocationStatus(adminUrl: string, target: string): Promise<string | undefined> {
  const response = await fetch(`${adminUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: `SELECT status FROM sys_invocation WHERE target = '${target}'` }),
  });
  const body = (await response.json()) as { rows?: { status: string }[] };
  return body.rows?.[0]?.status;
}
