/**
 * A static file server on 127.0.0.1 for browser tests: what `python3 -m http.server` does for a page, with
 * content types a browser insists on (module scripts, WebAssembly).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.gguf': 'application/octet-stream',
};

/** Options for {@link startStaticServer}. */
export interface StaticServerOptions {
  /**
   * Paths answered without the file system: a body and its type, or `'stall'` for a request that is never
   * answered (its connection is closed with the server).
   */
  extra?: Record<string, { body: Buffer | string; type: string } | 'stall'>;
  /** Also serve `/a` from `a.html` (VitePress's clean URLs, as its own preview does). @default false */
  cleanUrls?: boolean;
}

/**
 * Serves the files under `root` (a folder's `index.html` for its path); 403 for a path outside it, 404 for
 * a missing file. `close()` ends open connections too.
 */
export async function startStaticServer(
  root: string,
  options: StaticServerOptions = {},
): Promise<{ server: Server; origin: string; close(): Promise<void> }> {
  const base = path.resolve(root);
  const server = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const fixed = options.extra?.[pathname];
    if (fixed === 'stall') return;
    if (fixed) {
      response.writeHead(200, { 'content-type': fixed.type }).end(fixed.body);
      return;
    }
    const file = path.join(base, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
    if (file !== base && !file.startsWith(`${base}${path.sep}`)) {
      response.writeHead(403).end();
      return;
    }
    const candidates = options.cleanUrls ? [file, `${file}.html`, path.join(file, 'index.html')] : [file];
    for (const candidate of candidates) {
      try {
        const body = await readFile(candidate);
        response.writeHead(200, {
          'content-type': TYPES[path.extname(candidate)] ?? 'application/octet-stream',
        });
        response.end(body);
        return;
      } catch {
        // the next form, if any
      }
    }
    response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
