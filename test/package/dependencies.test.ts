/**
 * `ai`'s own dependencies are declared in taoloop's `dependencies` too, pinned to exactly the copy `ai` uses,
 * so that a check which bundles taoloop as an app that installed only it (every bare import must be one of its
 * dependencies: `../shared/tools/consumer-bundle.mjs`) sees each package the bundle contains. This test keeps
 * those pins in step with `ai`: after a bump of `ai`, it names each pin to move.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** Declared only because `ai` (or a package of its own) imports them. */
const FOR_AI = [
  '@ai-sdk/gateway',
  '@ai-sdk/provider',
  '@ai-sdk/provider-utils',
  '@vercel/oidc',
  'eventsource-parser',
];

/** The version of `name` that the package in `fromDir` loads. */
function versionSeenFrom(fromDir: string, name: string): string {
  const require = createRequire(path.join(fromDir, 'package.json'));
  let dir = path.dirname(require.resolve(name));
  while (!dir.endsWith(path.join('node_modules', name))) dir = path.dirname(dir);
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

test("each of ai's dependencies that taoloop declares is pinned to the very copy ai loads", () => {
  const ai = path.join(ROOT, 'node_modules', 'ai');
  const gateway = path.join(ROOT, 'node_modules', '@ai-sdk', 'gateway');
  const utils = path.join(ROOT, 'node_modules', '@ai-sdk', 'provider-utils');
  const seen: Record<string, string> = {
    '@ai-sdk/gateway': versionSeenFrom(ai, '@ai-sdk/gateway'),
    '@ai-sdk/provider': versionSeenFrom(ai, '@ai-sdk/provider'),
    '@ai-sdk/provider-utils': versionSeenFrom(ai, '@ai-sdk/provider-utils'),
    '@vercel/oidc': versionSeenFrom(gateway, '@vercel/oidc'),
    'eventsource-parser': versionSeenFrom(utils, 'eventsource-parser'),
  };
  for (const name of FOR_AI) {
    assert.equal(
      pkg.dependencies[name],
      seen[name],
      `${name}: ai ${pkg.dependencies.ai} loads ${seen[name]}; pin it so in package.json ("dependencies")`,
    );
  }
});

test('@ai-sdk/react (for useChat) uses the same ai as taoloop, so an app installs one copy', () => {
  const react = path.join(ROOT, 'node_modules', '@ai-sdk', 'react');
  assert.equal(versionSeenFrom(react, 'ai'), pkg.dependencies.ai);
});
