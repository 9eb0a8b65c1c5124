/**
 * The portable core has no Node built-in in its import graph: the built `taoloop` and `taoloop/testing`
 * entries (dist/, resolved through package.json `exports`) bundle with esbuild for the browser. A test
 * that fails here names the import chain that pulled a Node built-in in. The core is also few files, shared
 * by every entry point.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

/** The package files `entry` loads through static imports, and the bare specifiers (packages, built-ins) it imports. */
function staticGraph(entry: string): { files: string[]; bare: string[] } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    // Rollup writes static imports as `import … from '…'`, `import '…'` and `export … from '…'` statements.
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^'"`;]*?['"]([^'"]+)['"];?$/gm)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier));
      else bare.add(specifier);
    }
  };
  visit(path.join(ROOT, entry));
  return { files: [...files].map((file) => path.relative(ROOT, file)), bare: [...bare] };
}

test('importing the core reads two files and resolves no package (issue 20: the import stays cheap)', () => {
  // Node's import time goes to finding, reading and compiling files: `npm run bench -- install` measures it.
  const { files, bare } = staticGraph('dist/index.js');
  assert.deepEqual(bare, [], 'the core imports a package at load time; load it lazily or bundle it');
  assert.equal(files.length, 2, `the core is spread over ${files.length} files: ${files.join(', ')}`);
});

test('every entry point shares the one core chunk, so there is one copy of each class', async () => {
  const [coreFile] = staticGraph('dist/index.js').files.filter((file) => file !== 'dist/index.js');
  assert.ok(coreFile);
  for (const entry of [
    'dist/node/index.js',
    'dist/browser/index.js',
    'dist/restate/index.js',
    'dist/cli.js',
  ]) {
    assert.ok(staticGraph(entry).files.includes(coreFile), `${entry} does not import ${coreFile}`);
  }
  // The same class from two entry points is the same class: instanceof holds across them.
  const core = await import(pathToFileURL(path.join(ROOT, 'dist/index.js')).href);
  const node = await import(pathToFileURL(path.join(ROOT, 'dist/node/index.js')).href);
  assert.equal(node.RunStateError, core.RunStateError);
  assert.equal(node.NoSuchToolError, core.NoSuchToolError);
});
