/**
 * Ports for tests.
 *
 * @module
 */
import { createServer } from 'node:net';

/**
 * A port on `host` that nothing listens on: one the system just gave out and that was closed again (a
 * connection to it is refused, as to a model server that is not running).
 */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
