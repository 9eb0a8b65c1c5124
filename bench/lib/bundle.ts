/**
 * Measuring taoloop as users run it. `tsup` builds `dist/` with esbuild (ESM, node20, packages external, no
 * `keepNames`, no source maps at run time); the benchmarks run through tsx, which compiles each source
 * file with `keepNames` (every closure the loop creates is wrapped in a `__name(...)` call) and turns on
 * source maps (every `Error` created maps its stack). Together that made taoloop's own CPU per eval item
 * about 3.5x what the built code costs. So a benchmark bundles the sources it measures the way `tsup` does
 * and imports the bundle.
 *
 * @module
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchDir } from './peer.js';

interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** A bundle of taoloop's sources, or the sources themselves when esbuild is missing. */
export interface Bundled<T> {
  module: T;
  /** Where the code came from, for the report. */
  from: string;
}

/**
 * Bundles `exports` (lines of `export { ... } from './src/....ts';`, relative to the repository root) with
 * esbuild as `tsup` builds `dist/` and writes it to `bench/node_modules/.cache/<name>.mjs` (ignored; Node
 * resolves its packages from there). Returns that path, or undefined when esbuild cannot be loaded.
 */
export async function bundleSources(name: string, exports: string): Promise<string | undefined> {
  let esbuild: Esbuild;
  try {
    const specifier = 'esbuild';
    esbuild = (await import(specifier)) as Esbuild;
  } catch {
    return undefined;
  }
  const outfile = join(benchDir, 'node_modules', '.cache', `${name}.mjs`);
  await esbuild.build({
    stdin: { contents: exports, resolveDir: join(benchDir, '..'), loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/**
 * {@link bundleSources}, then imports the bundle. Without esbuild, imports `fallback()` (the sources through
 * tsx) instead and says so in `from`.
 */
export async function loadBundled<T>(
  name: string,
  exports: string,
  fallback: () => Promise<T>,
): Promise<Bundled<T>> {
  const outfile = await bundleSources(name, exports);
  if (outfile === undefined) {
    return { module: await fallback(), from: 'src through tsx (esbuild not found; slower than dist/)' };
  }
  return {
    module: (await import(pathToFileURL(outfile).href)) as T,
    from: 'src, bundled with esbuild like dist/',
  };
}
