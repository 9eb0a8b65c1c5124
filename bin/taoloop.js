#!/usr/bin/env node
// The CLI lives in dist/ (built by `npm run build`, and by `npm pack` / `npm publish` through `prepack`).
// In a clone that has not been built yet, it runs from the sources through tsx (a devDependency that
// `npm ci` installs), so `npm ci && npx taoloop run ...` works as the README's first command says.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
const source = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(entry)) {
  ({ main } = await import(entry.href));
} else if (existsSync(source)) {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('taoloop is not built yet: run `npm ci` (or `npm run build`) first.\n');
    process.exit(2);
  }
  ({ main } = await tsx.tsImport(source.href, import.meta.url));
} else {
  process.stderr.write('taoloop is not built: its dist/ folder is missing; reinstall the package.\n');
  process.exit(2);
}
process.exitCode = await main(process.argv);
