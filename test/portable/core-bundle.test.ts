/**
 * The portable core has no Node built-in in its import graph: the built `taoloop` and `taoloop/testing`
 * entries (dist/, resolved through package.json `exports`) bundle with esbuild for the browser. A test
 * that fails here names the import chain that pulled a Node built-in in.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Bundles `source` (importing the package by name) for the browser; lists each Node built-in reached. */
async function browserBundle(
  source: string,
  packages: 'bundle' | 'external' = 'bundle',
): Promise<{ builtins: string[]; bytes: number }> {
  const builtins: string[] = [];
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    packages,
    plugins: [
      {
        name: 'find-node-builtins',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            const bare = args.path.startsWith('node:') ? args.path : args.path.split('/')[0];
            if (bare === undefined || !BUILTINS.has(bare)) return undefined;
            builtins.push(`${args.path} (imported by ${args.importer.replace(ROOT, '')})`);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return { builtins, bytes: result.outputFiles.reduce((sum, file) => sum + file.contents.length, 0) };
}

test('the built core entries bundle for the browser with no Node built-in', async () => {
  assert.ok(existsSync(`${ROOT}dist/index.js`), 'dist/ is missing: run `npm run build` first');
  const { builtins, bytes } = await browserBundle(
    "export * from 'taoloop';\nexport { scriptedModel } from 'taoloop/testing';\n",
  );
  assert.deepEqual(builtins, [], `Node built-ins in the portable core:\n${builtins.join('\n')}`);
  assert.ok(bytes > 10_000, `the bundle is suspiciously small (${bytes} bytes)`);
});

test('the Node entry is the one that reaches Node built-ins', async () => {
  // Its dependencies (node-llama-cpp's platform packages, say) are left out: only taoloop's own code.
  const { builtins } = await browserBundle("export * from './dist/node/index.js';\n", 'external');
  assert.ok(
    builtins.some((line) => /^(node:)?fs\b/.test(line)),
    builtins.join('\n'),
  );
});
