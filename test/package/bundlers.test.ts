/**
 * The package as an app's bundler sees it (issue 28): the packed tarball is installed into an empty app
 * folder outside the repository, with nothing else (so no optional peer dependency is there), and two small
 * apps are bundled by esbuild, Rollup, Vite, webpack and Bun's bundler with no setting beyond entry, output
 * and target (Rollup: its node-resolve and commonjs plugins, without which it bundles no package; Vite's
 * server build: `ssr.noExternal`, without which it bundles none). Each bundle is then run:
 *
 * - the browser app (`taoloop`, `taoloop/browser`, `taoloop/protocol`, `taoloop/testing`) in headless
 *   Chromium: a scripted ReAct run with a real calculator call, and the errors that say what to do for a
 *   hosted model (`resolveModelSpec('openai:...')`) and for `browserModel` without its `wllama` option;
 * - the server app (a `createAgentUIStreamResponse` route handler returning a `Response`, as Next.js calls
 *   it) in Node.
 *
 * The bundlers run from the repository's node_modules; the apps' imports resolve from the app folder.
 * A bundler warning that names taoloop fails the test (warnings about other packages are only shown).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import * as esbuild from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { installApp, packTarball, ROOT, sh } from '../portable/helpers.js';
import { browserProblem, launchChromium } from '../web/helpers.js';

const browserSkip = await browserProblem();
const requireFromRoot = createRequire(path.join(ROOT, 'package.json'));

/** The browser app: the result (or the error) goes into the page as `<pre id="result">` JSON. */
const BROWSER_APP = `import { calculator, ModelConfigError, resolveModelSpec, runAgent } from 'taoloop';
import { browserModel } from 'taoloop/browser';
import { parseTurn } from 'taoloop/protocol';
import { scriptedModel } from 'taoloop/testing';

async function configError(work) {
  try {
    await work();
    return 'no error';
  } catch (error) {
    return error instanceof ModelConfigError ? error.message : 'not a ModelConfigError: ' + error;
  }
}

async function main() {
  const model = scriptedModel([
    'Thought: a year for 7.\\nAction: calculator[20 * 12 * 7]',
    'Thought: done.\\nAnswer: $1,680 per year',
  ]);
  const result = await runAgent({ model, tools: [calculator], question: 'Pro for 7 developers, per year?' });
  return {
    status: result.status,
    answer: result.answer,
    observations: result.steps.flatMap((step) => (step.observation ? [step.observation.text] : [])),
    turn: parseTurn('Thought: t\\nAction: calculator[1 + 1]', { tools: ['calculator'] }).type,
    browserModel: await configError(() => browserModel({ model: '/m.gguf', wasmUrl: '/wllama.wasm' })),
    openai: await configError(() => resolveModelSpec('openai:gpt-4o-mini', { OPENAI_API_KEY: 'sk-test' })),
  };
}

function show(outcome) {
  const pre = document.createElement('pre');
  pre.id = 'result';
  pre.textContent = JSON.stringify(outcome);
  document.body.append(pre);
}
const shown = (outcome) =>
  document.readyState === 'loading'
    ? document.addEventListener('DOMContentLoaded', () => show(outcome))
    : show(outcome);
main().then(shown, (error) => shown({ error: String(error && error.stack ? error.stack : error) }));
`;

/** The server app: a route handler as Next.js calls it, run once on a useChat request; prints JSON. */
const SERVER_APP = `import { calculator, createAgentUIStreamResponse, ModelConfigError, resolveModelSpec } from 'taoloop';
import { scriptedModel } from 'taoloop/testing';

export async function POST(request) {
  const model = scriptedModel([
    'Thought: a year for 7.\\nAction: calculator[20 * 12 * 7]',
    'Thought: done.\\nAnswer: $1,680 per year',
  ]);
  return createAgentUIStreamResponse({ model, tools: [calculator], request });
}

async function main() {
  const messages = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Pro for 7, per year?' }] }];
  const response = await POST(
    new Request('http://127.0.0.1/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    }),
  );
  const chunks = (await response.text())
    .split('\\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)));
  let openai = 'no error';
  try {
    await resolveModelSpec('openai:gpt-4o-mini', { OPENAI_API_KEY: 'sk-test' });
  } catch (error) {
    openai = error instanceof ModelConfigError ? error.message : 'not a ModelConfigError: ' + error;
  }
  return {
    isResponse: response instanceof Response,
    status: response.status,
    contentType: response.headers.get('content-type'),
    toolOutput: chunks.find((chunk) => chunk.type === 'tool-output-available')?.output,
    answer: chunks.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.delta).join(''),
    openai,
  };
}

main().then(
  (outcome) => console.log(JSON.stringify(outcome)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
`;

/** What one bundler made: the browser app's folder and page, the server app's file, the warnings. */
interface Bundled {
  /** The folder served to Chromium. */
  browserDir: string;
  /** The page in it; written by the test unless the bundler makes one (Vite). */
  page: { file: string; script?: { src: string; module: boolean } };
  /** The server bundle, run with Node. */
  serverFile: string;
  warnings: string[];
}

type Bundler = (app: string, out: string) => Promise<Bundled>;

const BUNDLERS: Record<string, Bundler> = {
  async esbuild(app, out) {
    const warnings: string[] = [];
    const build = async (options: esbuild.BuildOptions) => {
      const result = await esbuild.build({ bundle: true, logLevel: 'silent', ...options });
      warnings.push(...result.warnings.map((w) => `${w.location?.file ?? ''}: ${w.text}`));
    };
    await build({
      entryPoints: [path.join(app, 'src', 'browser.js')],
      outfile: path.join(out, 'browser', 'app.js'),
    });
    // Node's default format (CommonJS): an ES module bundle cannot `require('path')`, as @vercel/oidc (a
    // dependency of the AI SDK, CommonJS only) does.
    await build({
      entryPoints: [path.join(app, 'src', 'server.js')],
      outfile: path.join(out, 'server.cjs'),
      platform: 'node',
    });
    return {
      browserDir: path.join(out, 'browser'),
      page: { file: 'index.html', script: { src: 'app.js', module: false } },
      serverFile: path.join(out, 'server.cjs'),
      warnings,
    };
  },

  async rollup(app, out) {
    const { rollup } = (await import(requireFromRoot.resolve('rollup'))) as typeof import('rollup');
    const { nodeResolve } = (await import(
      requireFromRoot.resolve('@rollup/plugin-node-resolve')
    )) as typeof import('@rollup/plugin-node-resolve');
    const commonjs = (
      (await import(requireFromRoot.resolve('@rollup/plugin-commonjs'))) as {
        default: typeof import('@rollup/plugin-commonjs').default;
      }
    ).default;
    const warnings: string[] = [];
    for (const [name, browser] of [
      ['browser', true],
      ['server', false],
    ] as const) {
      const bundle = await rollup({
        input: path.join(app, 'src', `${name}.js`),
        plugins: [nodeResolve({ browser }), commonjs()],
        onwarn: (warning) => warnings.push(`${warning.code}: ${warning.message}`),
      });
      await bundle.write({ dir: path.join(out, name), format: 'es', entryFileNames: 'app.js' });
      await bundle.close();
    }
    return {
      browserDir: path.join(out, 'browser'),
      page: { file: 'index.html', script: { src: 'app.js', module: true } },
      serverFile: path.join(out, 'server', 'app.js'),
      warnings,
    };
  },

  async vite(app, out) {
    const vite = (await import(requireFromRoot.resolve('vite'))) as typeof import('vite');
    const warnings: string[] = [];
    const logger = vite.createLogger('warn');
    logger.warn = (message) => warnings.push(message);
    logger.warnOnce = (message) => warnings.push(message);
    logger.info = () => undefined;
    await writeFile(
      path.join(app, 'index.html'),
      '<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/src/browser.js"></script>',
    );
    const common = { root: app, configFile: false, logLevel: 'warn', customLogger: logger } as const;
    await vite.build({ ...common, build: { outDir: path.join(out, 'browser') } });
    // A server build leaves every package to Node unless told to bundle them (as for an edge function).
    await vite.build({
      ...common,
      ssr: { noExternal: true },
      build: { ssr: path.join(app, 'src', 'server.js'), outDir: path.join(out, 'server') },
    });
    return {
      browserDir: path.join(out, 'browser'),
      page: { file: 'index.html' },
      serverFile: path.join(out, 'server', 'server.js'),
      warnings,
    };
  },

  async webpack(app, out) {
    const webpack = requireFromRoot('webpack') as typeof import('webpack');
    const warnings: string[] = [];
    const pack = (config: import('webpack').Configuration) =>
      new Promise<void>((resolve, reject) => {
        webpack(config, (error, stats) => {
          if (error) return reject(error);
          const info = stats?.toJson({ all: false, errors: true, warnings: true });
          if (stats?.hasErrors())
            return reject(
              new Error(info?.errors?.map((e) => `${e.moduleName ?? ''}: ${e.message}`).join('\n')),
            );
          warnings.push(...(info?.warnings ?? []).map((w) => `${w.moduleName ?? ''}: ${w.message}`));
          resolve();
        });
      });
    // The browser bundle as an app ships it (minified); the server one unminified, which takes seconds
    // instead of about 15.
    await pack({
      mode: 'production',
      target: 'web',
      entry: path.join(app, 'src', 'browser.js'),
      output: { path: path.join(out, 'browser'), filename: 'app.js' },
    });
    await pack({
      mode: 'development',
      target: 'node',
      entry: path.join(app, 'src', 'server.js'),
      output: { path: path.join(out, 'server'), filename: 'app.cjs' },
    });
    return {
      browserDir: path.join(out, 'browser'),
      page: { file: 'index.html', script: { src: 'app.js', module: false } },
      serverFile: path.join(out, 'server', 'app.cjs'),
      warnings,
    };
  },

  async bun(app, out) {
    const bun = path.join(ROOT, 'node_modules', '.bin', 'bun');
    const warnings: string[] = [];
    for (const [name, target] of [
      ['browser', 'browser'],
      ['server', 'node'],
    ] as const) {
      const { stderr } = await run(
        bun,
        ['build', path.join(app, 'src', `${name}.js`), '--outdir', path.join(out, name), '--target', target],
        app,
      );
      warnings.push(...stderr.split('\n').filter((line) => /warn/i.test(line)));
    }
    return {
      browserDir: path.join(out, 'browser'),
      page: { file: 'index.html', script: { src: 'browser.js', module: true } },
      serverFile: path.join(out, 'server', 'server.js'),
      warnings,
    };
  },
};

/** Runs a program in `cwd`: its stdout and stderr; rejects with both when it fails. */
function run(file: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, timeout: 120_000, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** What the browser app puts in its page. */
interface BrowserOutcome {
  error?: string;
  status: string;
  answer?: string;
  observations: string[];
  turn: string;
  browserModel: string;
  openai: string;
}

/** What the server app prints. */
interface ServerOutcome {
  isResponse: boolean;
  status: number;
  contentType: string | null;
  toolOutput: unknown;
  answer: string;
  openai: string;
}

const OPENAI_MISSING =
  /^"openai:" models need the @ai-sdk\/openai package.*npm install @ai-sdk\/openai@3\.0\.141/;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

describe('an app that installed only taoloop bundles it with each bundler, and the bundles run', () => {
  let dir: string;
  let app: string;
  /** The folder the static server serves (one bundler's browser output at a time). */
  let served = '';
  let site: Server | undefined;
  let origin = '';
  let context: BrowserContext | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'taoloop-bundlers-'));
    app = path.join(dir, 'app');
    await installApp(app, [await packTarball(dir)]);
    await writeFile(path.join(app, 'src', 'browser.js'), BROWSER_APP);
    await writeFile(path.join(app, 'src', 'server.js'), SERVER_APP);
    if (browserSkip) return;
    site = createServer(async (request, response) => {
      const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
      const file = path.join(served, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
      if (!file.startsWith(`${served}${path.sep}`)) return void response.writeHead(403).end();
      try {
        const body = await readFile(file);
        response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
        response.end(body);
      } catch {
        response.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((resolve) => site?.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    ({ context, close: closeBrowser } = await launchChromium());
  });

  after(async () => {
    await closeBrowser?.();
    site?.closeAllConnections();
    site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Opens the bundled page in Chromium: what the app put in it. */
  async function runInChromium(bundled: Bundled): Promise<BrowserOutcome> {
    assert.ok(context, 'Chromium is running');
    const { script } = bundled.page;
    if (script) {
      const tag = `<script${script.module ? ' type="module"' : ''} src="./${script.src}"></script>`;
      await writeFile(
        path.join(bundled.browserDir, bundled.page.file),
        `<!doctype html><meta charset="utf-8"><title>app</title><body>${tag}</body>`,
      );
    }
    served = bundled.browserDir;
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(`${origin}/${bundled.page.file}`);
      const text = await page.locator('#result').textContent({ timeout: 30_000 });
      assert.deepEqual(errors, []);
      return JSON.parse(text ?? '') as BrowserOutcome;
    } finally {
      await page.close();
    }
  }

  for (const [name, bundle] of Object.entries(BUNDLERS)) {
    test(`${name}: the browser app runs in Chromium and the route handler in Node`, async (t: TestContext) => {
      const out = path.join(app, 'out', name);
      await mkdir(out, { recursive: true });
      const started = Date.now();
      const bundled = await bundle(app, out);
      t.diagnostic(`${name} bundled both apps in ${Date.now() - started} ms`);
      const warnings = [...new Set(bundled.warnings)];
      for (const warning of warnings.slice(0, 5)) t.diagnostic(`warning: ${warning.slice(0, 300)}`);
      if (warnings.length > 5) t.diagnostic(`... and ${warnings.length - 5} more warnings`);
      assert.deepEqual(
        bundled.warnings.filter((warning) => /node_modules[\\/]taoloop[\\/]/.test(warning)),
        [],
        `${name} warned about taoloop`,
      );

      const printed = await sh(process.execPath, [bundled.serverFile], app, 60_000);
      const server = JSON.parse(printed.trim().split('\n').pop() ?? '') as ServerOutcome;
      assert.deepEqual(
        { ...server, openai: undefined },
        {
          isResponse: true,
          status: 200,
          contentType: 'text/event-stream',
          toolOutput: '1680',
          answer: '$1,680 per year',
          openai: undefined,
        },
      );
      assert.match(server.openai, OPENAI_MISSING);

      if (browserSkip) return t.diagnostic(`Chromium part skipped: ${browserSkip}`);
      const page = await runInChromium(bundled);
      assert.equal(page.error, undefined);
      assert.equal(page.status, 'answered');
      assert.equal(page.answer, '$1,680 per year');
      assert.deepEqual(page.observations, ['1680']);
      assert.equal(page.turn, 'action');
      assert.match(page.openai, OPENAI_MISSING);
      assert.match(
        page.browserModel,
        /^The browser model needs @wllama\/wllama, .*pass it in browserModel's options: `wllama: \(\) => import\('@wllama\/wllama\/esm\/index\.js'\)`/,
      );
    });
  }
});
