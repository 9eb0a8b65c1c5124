#!/usr/bin/env node
// The CLI lives in dist/ (built by `npm ci` through the `prepare` script, or by `npm run build`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('taoloop is not built yet: run `npm run build` (npm ci does it for you).\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
