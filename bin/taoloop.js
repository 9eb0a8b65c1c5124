#!/usr/bin/env node
// The CLI lives in dist/ (built by `npm run build`, and by `npm pack` / `npm publish` through `prepack`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('taoloop is not built yet: run `npm run build` first.\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
