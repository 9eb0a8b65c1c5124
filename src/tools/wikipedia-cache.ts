/**
 * A folder-backed {@link WikipediaResponseCache} for Node: one file per request URL, named by its SHA-256.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WikipediaResponseCache } from './wikipedia-http.js';

/**
 * Responses kept as `<cacheDir>/<sha256 of the URL>.json`. The folder is created when needed; entries
 * never expire; a write is atomic (temp file, then rename) so a concurrent reader never sees half a file,
 * and a write that fails is skipped (the cache is an optimisation).
 */
export function folderResponseCache(cacheDir: string): WikipediaResponseCache {
  const fileFor = (url: string) =>
    path.join(cacheDir, `${createHash('sha256').update(url).digest('hex')}.json`);
  return {
    get: (url) => readFile(fileFor(url), 'utf8').catch(() => undefined),
    async set(url, body) {
      const file = fileFor(url);
      try {
        await mkdir(path.dirname(file), { recursive: true });
        const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
        await writeFile(temp, body, 'utf8');
        await rename(temp, file);
      } catch {
        // The cache is an optimisation: failing to write it must not fail the search.
      }
    },
  };
}
