import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageError } from '../../src/cli/errors.js';
import { RESTATE_SDK_PACKAGE, requireRestateSdk } from '../../src/cli/restate-sdk.js';
import { cleanEnv, ROOT } from '../helpers/cli.js';
import { BIN } from './support.js';

const INSTALL = /run `npm install @restatedev\/restate-sdk@\d+\.\d+\.\d+`\./;

test('the install command names the Restate SDK version taoloop is built and tested with', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const version = pkg.devDependencies['@restatedev/restate-sdk'];
  assert.equal(RESTATE_SDK_PACKAGE, `@restatedev/restate-sdk@${version}`);
  assert.ok(pkg.peerDependenciesMeta['@restatedev/restate-sdk'].optional, 'an optional peer dependency');
  assert.match(
    pkg.peerDependencies['@restatedev/restate-sdk'],
    new RegExp(`${version.replaceAll('.', '\\.')}$`),
  );
});

test('a missing Restate SDK is a usage error with the one command that installs it; other errors pass', async () => {
  const missing = Object.assign(new Error("Cannot find package '@restatedev/restate-sdk'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
  await assert.rejects(
    requireRestateSdk(() => Promise.reject(missing)),
    (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(
        error.message,
        /^taoloop worker --restate needs the Restate SDK, which is not installed: /,
      );
      assert.match(error.message, INSTALL);
      assert.ok(error.message.includes(RESTATE_SDK_PACKAGE));
      return true;
    },
  );
  await assert.rejects(
    requireRestateSdk(() => Promise.reject(new Error('boom'))),
    /^Error: boom$/,
  );
  await requireRestateSdk(); // installed here: loads
});

test('taoloop worker --restate without the SDK installed says how to install it, exit 2', () => {
  // A resolve hook makes the package look absent, as for a user who never installed it.
  const hook = `export async function resolve(s, c, n) { if (s.startsWith('@restatedev/restate-sdk')) { const e = new Error("Cannot find package '" + s + "'"); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return n(s, c); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      BIN,
      'worker',
      '--restate',
      '--port',
      '0',
      '--model',
      'openai-compatible:http://127.0.0.1:9/v1#m',
    ],
    { cwd: ROOT, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(child.status, 2, child.stderr);
  assert.match(
    child.stderr,
    /taoloop: taoloop worker --restate needs the Restate SDK, which is not installed: /,
  );
  assert.match(child.stderr, INSTALL);
  assert.doesNotMatch(child.stderr, /serving|at http/);
});
