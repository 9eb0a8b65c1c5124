/**
 * Serving Restate services from this process: an HTTP/2 endpoint that a Restate server calls.
 *
 * Source: Restate TypeScript SDK docs, "Serving" (`restate.endpoint().bind(...)`, `http2Handler()`):
 * https://docs.restate.dev/develop/ts/serving.
 *
 * @module
 */
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';

/** A service, virtual object or workflow definition, e.g. from `agentService`. */
export type RestateDefinition = Parameters<restate.RestateEndpoint['bind']>[0];

/** Options for {@link startWorker}. */
export interface WorkerOptions {
  /** Port to listen on; `0` picks a free one. @default 9080 */
  port?: number;
  /**
   * Interface to listen on. Keep the default on one machine; in a cluster use an address the Restate
   * nodes can reach (and protect it: see `withIdentityV1` in the SDK docs).
   * @default '127.0.0.1'
   */
  host?: string;
  /** What to serve. */
  services: readonly RestateDefinition[];
}

/** A running worker. */
export interface RestateWorker {
  /** The port actually bound. */
  port: number;
  /** The URI to register with Restate (`POST <admin>/deployments {"uri": ...}`). */
  url: string;
  /** Stops accepting calls and drops open connections; Restate retries their invocations elsewhere. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP/2 endpoint serving `services`. Register its `url` once with the Restate admin API; a
 * worker restarted on the same address needs no new registration.
 *
 * @example
 * ```ts
 * const worker = await startWorker({ port: 9080, services: [agentService({ buildRun })] });
 * await registerDeployment('http://127.0.0.1:9070', worker.url);
 * ```
 */
export async function startWorker(options: WorkerOptions): Promise<RestateWorker> {
  if (options.services.length === 0) throw new Error('startWorker needs at least one service to serve.');
  const endpoint = restate.endpoint();
  for (const service of options.services) endpoint.bind(service);
  const server = http2.createServer(endpoint.http2Handler());
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // `exclusive`: a node:cluster worker binds its own socket instead of sharing the primary's.
    server.listen({ port: options.port ?? 9080, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the worker is not on a TCP port');
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    port: address.port,
    url: `http://${urlHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Restate keeps HTTP/2 connections open; close them or `server.close` waits for them forever.
        for (const session of sessions) session.destroy();
      }),
  };
}
