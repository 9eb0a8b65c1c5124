/**
 * A small HTTP/2 (h2c) balancer for running several workers behind one registered deployment URI.
 *
 * Restate registers one URI per deployment and keeps its HTTP/2 connections open, so two workers
 * registered separately do not share load (the newest deployment takes new invocations), and a
 * connection-level balancer sends everything to one worker. Restate's docs ask for an L7 balancer that
 * speaks HTTP/2 ("Running services behind a load balancer": https://docs.restate.dev/services/deploy/standalone).
 * This one balances per stream: each invocation attempt is one HTTP/2 stream and goes to the next worker,
 * round robin; a worker that cannot be reached answers 502, and Restate retries the attempt elsewhere.
 * For one machine and tests; in a cluster use the platform's L7 balancer (Envoy, Istio, Knative).
 *
 * @module
 */
import http2 from 'node:http2';

/** Options for {@link startBalancer}. */
export interface BalancerOptions {
  /** Port to listen on; `0` picks a free one. @default 9080 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Worker URIs (`http://127.0.0.1:9081`), or a function read on every stream (workers may come and go). */
  backends: readonly string[] | (() => readonly string[]);
}

/** A running balancer. */
export interface RestateBalancer {
  port: number;
  /** The URI to register with Restate. */
  url: string;
  /** Stops listening and closes the connections to the workers. */
  close(): Promise<void>;
}

/** Request headers that belong to one hop (RFC 9113, section 8.2.2) or that http2 sets itself. */
const HOP_HEADERS = new Set([
  ':authority',
  ':scheme',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);

/** Starts the balancer. Streams go round robin over the backends; none reachable answers 502. */
export async function startBalancer(options: BalancerOptions): Promise<RestateBalancer> {
  const backends =
    typeof options.backends === 'function' ? options.backends : () => options.backends as string[];
  const sessions = new Map<string, http2.ClientHttp2Session>();
  const incoming = new Set<http2.ServerHttp2Session>();
  let next = 0;

  const sessionFor = (backend: string): http2.ClientHttp2Session => {
    const existing = sessions.get(backend);
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const session = http2.connect(backend);
    session.on('error', () => {}); // surfaces on the streams; the session is dropped on close
    session.once('close', () => sessions.get(backend) === session && sessions.delete(backend));
    sessions.set(backend, session);
    return session;
  };

  const server = http2.createServer();
  server.on('session', (session) => {
    incoming.add(session);
    session.once('close', () => incoming.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const list = backends();
    const backend = list[next++ % Math.max(list.length, 1)];
    const fail = (status: number, message: string) => {
      if (!stream.headersSent && !stream.destroyed) stream.respond({ ':status': status });
      if (!stream.destroyed) stream.end(message);
    };
    if (backend === undefined) return fail(503, 'no worker is available');
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!HOP_HEADERS.has(name) && value !== undefined) forwarded[name] = value;
    }
    let upstream: http2.ClientHttp2Stream;
    try {
      upstream = sessionFor(backend).request(forwarded);
    } catch {
      return fail(502, `worker ${backend} is unreachable`);
    }
    upstream.on('response', (responseHeaders) => {
      const { ':status': status, ...rest } = responseHeaders;
      const out: http2.OutgoingHttpHeaders = { ':status': status ?? 502 };
      for (const [name, value] of Object.entries(rest)) if (!HOP_HEADERS.has(name)) out[name] = value;
      if (!stream.destroyed) stream.respond(out);
      upstream.pipe(stream);
    });
    upstream.on('error', () => fail(502, `worker ${backend} is unreachable`));
    stream.on('error', () => upstream.destroy());
    stream.on('close', () => upstream.destroyed || upstream.close());
    stream.pipe(upstream);
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 9080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the balancer is not on a TCP port');
  return {
    port: address.port,
    url: `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of incoming) session.destroy();
        for (const session of sessions.values()) session.destroy();
      }),
  };
}
