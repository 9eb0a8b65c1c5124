// The JavaScript build (the type declarations come from tsup, `tsup.config.ts`).
//
// Why Rollup: importing the core (`import('taoloop')`) must stay cheap (issue 20: at most 40 ms above
// `node -e ""`). Node spends that time finding, reading and compiling files, not running them, so the
// core must be few files. esbuild's code splitting cuts shared code into one chunk per set of entry points
// that use it (19 files for the core); Rollup's `manualChunks` puts every module of the core into one
// chunk that all entry points share, so `taoloop/node`, `taoloop/testing`, the CLI and the rest use the
// very same core (one copy of each class, so `instanceof` holds across entry points).
//
// decimal.js and minisearch are bundled into that chunk (their licences are kept in their header comments
// and in THIRD-PARTY-NOTICES.md): resolving and loading two more packages cost the import about 8 ms, more
// than the rest of the core's files together. Every other dependency stays external (a peer or a
// dependency of the package, loaded lazily where it is heavy).
import { rmSync } from 'node:fs';
import path from 'node:path';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import esbuild from 'rollup-plugin-esbuild';

const ENTRIES = {
  index: 'src/index.ts',
  'node/index': 'src/node/index.ts',
  'testing/index': 'src/testing/index.ts',
  'restate/index': 'src/restate/index.ts',
  'protocol/index': 'src/protocol/index.ts',
  'browser/index': 'src/browser/index.ts',
  cli: 'src/cli/main.ts',
};
/** The dependencies bundled into the core chunk. */
const BUNDLED = ['decimal.js', 'minisearch'];
const CORE_ENTRY = path.resolve(ENTRIES.index);

/** TypeScript sources are imported with `.js`, as Node's ESM resolution wants: find the `.ts` beside. */
const tsExtensions = {
  name: 'ts-extensions',
  async resolveId(source, importer) {
    if (!importer || !source.startsWith('.') || !source.endsWith('.js')) return null;
    const resolved = await this.resolve(source.replace(/\.js$/, '.ts'), importer, { skipSelf: true });
    return resolved ?? null;
  },
};

/** Every module the core entry imports statically, directly or not (computed once, on first use). */
let core;
function coreModules(getModuleInfo) {
  if (!core) {
    core = new Set();
    const visit = (id) => {
      if (core.has(id)) return;
      core.add(id);
      for (const imported of getModuleInfo(id)?.importedIds ?? []) visit(imported);
    };
    visit(CORE_ENTRY);
  }
  return core;
}

/** Empties dist/ first, so no file of an earlier build is left to be packed. */
const clean = {
  name: 'clean',
  buildStart: () => rmSync('dist', { recursive: true, force: true }),
};

export default {
  input: ENTRIES,
  external: (id) =>
    !id.startsWith('.') && !path.isAbsolute(id) && !id.startsWith('\0') && !BUNDLED.includes(id),
  plugins: [
    clean,
    tsExtensions,
    json({ preferConst: true }),
    nodeResolve({ resolveOnly: BUNDLED }),
    esbuild({ target: 'node20' }),
  ],
  output: {
    dir: 'dist',
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunk-[hash].js',
    manualChunks(id, { getModuleInfo }) {
      if (id !== CORE_ENTRY && coreModules(getModuleInfo).has(id)) return 'core';
      return undefined;
    },
  },
};
