/**
 * Loading peer libraries (the baselines) from `bench/node_modules`. They are dev dependencies of the
 * `bench/` package only, so the root type check cannot see their types: the specifier is a plain string,
 * which TypeScript does not resolve, and callers describe the few members they use.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `bench/` folder. */
export const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Imports `specifier` as resolved from `bench/` (Node walks up to `bench/node_modules`). Throws with the
 * install command when bench's dependencies are missing.
 */
export async function importPeer(specifier: string): Promise<unknown> {
  if (!existsSync(join(benchDir, 'node_modules'))) {
    throw new Error(
      'bench dependencies are not installed: run `npm ci --prefix bench` (npm run bench does it)',
    );
  }
  return import(specifier);
}

/** The exact installed version of a peer package, read from `bench/node_modules`. */
export function peerVersion(name: string): string {
  const manifest: unknown = JSON.parse(
    readFileSync(join(benchDir, 'node_modules', name, 'package.json'), 'utf8'),
  );
  return String((manifest as { version?: unknown }).version);
}
