/**
 * `npm run docs` / `npm run docs:dev`: builds or serves the documentation site in `docs/` (VitePress, with the
 * API reference TypeDoc generates from the TSDoc of every entry point). The site has its own package and
 * lockfile (`docs/package.json`), so the library's install stays light: it is installed here with `npm ci`
 * the first time, and again whenever `docs/package-lock.json` changed since.
 *
 * Usage: `node scripts/docs-site.mjs build|dev`. The built site is in `docs/.vitepress/dist`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const command = process.argv[2];
if (command !== 'build' && command !== 'dev') {
  console.error('usage: node scripts/docs-site.mjs build|dev');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const sh = (args) => {
  const result = spawnSync(npm, args, { cwd: docs, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

// Install the site's packages when they are missing or the lockfile changed since the last install.
const lock = readFileSync(`${docs}package-lock.json`, 'utf8');
const stamp = `${docs}node_modules/.taoloop-docs-lock`;
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
  sh(['ci', '--no-audit', '--no-fund']);
  writeFileSync(stamp, lock);
}
sh(['run', command]);
