/**
 * `npm run docs:check`: the documentation's examples cannot rot.
 *
 * 1. Every TypeScript block (```ts) in README.md and docs/**\/*.md (the generated API pages aside) is written
 *    out as a module under `.docs-check/` and type-checked, strict, against the BUILT package: the blocks
 *    import `taoloop`, `taoloop/node`, ... and TypeScript resolves them through the package's own `exports`
 *    to `dist/*.d.ts` (a package can import itself by name), exactly as an app that installed taoloop would.
 * 2. Every block marked runnable (```ts run) runs with Node (through tsx), each with a 60 s limit, and must
 *    exit 0 without writing to stderr (where the examples report a run that did not answer), against
 *    a local fake OpenAI-compatible server on 127.0.0.1 (`OPENAI_BASE_URL`, `OPENAI_API_KEY` are set) that
 *    answers every call with `Thought: ... Answer: 42`; blocks that need a richer script use the scripted
 *    model of `taoloop/testing`. No block reaches the network.
 * 3. Every relative link in README.md points to a file that exists.
 *
 * The site build (`npm run docs`: TypeDoc, then VitePress, which fails on a dead internal link) and its
 * browser test (`docs/test/site.browser.test.ts`) run after this in `npm run docs:check` (package.json).
 *
 * Usage: `node --import tsx scripts/docs-check.ts` (after `npm run build`).
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeOpenAI } from '../test/helpers/fake-openai-server.js';

const run = promisify(execFile);
const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const outDir = path.join(root, '.docs-check');

/** One fenced TypeScript block: where it is, its code, and whether it is marked runnable. */
interface Block {
  file: string;
  /** 1-based line of the block's first code line in `file`. */
  line: number;
  code: string;
  runnable: boolean;
  /** The module it is written to, relative to the repository root. */
  module: string;
}

/** The markdown files whose blocks are checked: the README and the guides (not the generated API pages). */
async function markdownFiles(): Promise<string[]> {
  const files = ['README.md'];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'api', '.vitepress', 'test'].includes(entry.name)) await walk(relative);
      } else if (entry.name.endsWith('.md')) files.push(relative);
    }
  };
  await walk('docs');
  return files.sort();
}

/** The ```ts / ```typescript blocks of a markdown text; `run` after the language marks one runnable. */
export function extractBlocks(file: string, text: string): Omit<Block, 'module'>[] {
  const blocks: Omit<Block, 'module'>[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\b(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', , info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j] ?? '').trimStart().startsWith(fence); j++) {
      body.push((lines[j] ?? '').slice(indent.length));
    }
    blocks.push({ file, line: i + 2, code: `${body.join('\n')}\n`, runnable: /(^|\s)run(\s|$)/.test(info) });
    i = j;
  }
  return blocks;
}

const slug = (file: string) => file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-');

async function writeBlocks(blocks: Omit<Block, 'module'>[]): Promise<Block[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023', 'DOM'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      // Each block is its own module, checked as a user's file would be: unused names are fine.
      noUnusedLocals: false,
    },
    include: ['*.ts'],
  };
  await writeFile(path.join(outDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const written: Block[] = [];
  const seen = new Map<string, number>();
  for (const block of blocks) {
    const n = (seen.get(block.file) ?? 0) + 1;
    seen.set(block.file, n);
    const module = path.join('.docs-check', `${slug(block.file)}-${n}.ts`);
    // `export {}` makes every block a module (top-level await, no global name clashes between blocks).
    await writeFile(path.join(root, module), `${block.code}\nexport {};\n`);
    written.push({ ...block, module });
  }
  return written;
}

/** Type-checks every block; returns the errors, each pointed at its markdown file and line. */
async function typeCheck(blocks: Block[]): Promise<string[]> {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(
    process.execPath,
    [tsc, '-p', path.join(outDir, 'tsconfig.json'), '--pretty', 'false'],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? '',
  }));
  const byModule = new Map(blocks.map((b) => [path.resolve(root, b.module), b]));
  const errors: string[] = [];
  for (const line of `${result.stdout}${result.stderr}`.split('\n')) {
    const match = /^(.+?)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
    if (!match) {
      if (line.trim()) errors.push(line.trim());
      continue;
    }
    const [, file = '', row = '0', , message = ''] = match;
    const block = byModule.get(path.resolve(outDir, file)) ?? byModule.get(path.resolve(root, file));
    errors.push(block ? `${block.file}:${block.line + Number(row) - 1}: ${message}` : line.trim());
  }
  return errors;
}

/** Runs the runnable blocks one by one against a local fake OpenAI server; returns the failures. */
async function runBlocks(blocks: Block[]): Promise<string[]> {
  const runnable = blocks.filter((b) => b.runnable);
  if (runnable.length === 0) return [];
  const server = await startFakeOpenAI({ replies: () => 'Thought: I know this one.\nAnswer: 42' });
  const failures: string[] = [];
  try {
    for (const block of runnable) {
      const started = performance.now();
      try {
        const { stderr } = await run(process.execPath, ['--import', 'tsx', block.module], {
          cwd: root,
          timeout: 60_000,
          env: {
            ...process.env,
            OPENAI_BASE_URL: server.baseURL,
            OPENAI_API_KEY: 'docs-check',
            TAOLOOP_MODEL: `openai-compatible:${server.baseURL}#docs-check`,
          },
        });
        // A block reports a failure it handled (a run that did not answer) on stderr: that fails it too.
        if (stderr.trim()) throw Object.assign(new Error('wrote to stderr'), { stderr });
        process.stderr.write(
          `  ran ${block.file}:${block.line} (${Math.round(performance.now() - started)} ms)\n`,
        );
      } catch (error) {
        const e = error as { stderr?: string; stdout?: string; message?: string; killed?: boolean };
        const why = e.killed
          ? 'did not finish within 60 s'
          : (e.stderr || e.stdout || e.message || '').trim();
        failures.push(
          `${block.file}:${block.line}: the runnable block failed: ${why.split('\n').slice(-12).join('\n')}`,
        );
      }
    }
  } finally {
    await server.close();
  }
  return failures;
}

/** README links that are relative paths must point to files that exist. */
async function checkReadmeLinks(): Promise<string[]> {
  const text = await readFile(path.join(root, 'README.md'), 'utf8');
  const problems: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    const file = target.split('#')[0] ?? '';
    if (!existsSync(path.join(root, file))) problems.push(`README.md: the link ${target} points to no file`);
  }
  return problems;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist', 'index.d.ts'))) {
    throw new Error(
      'dist/ is missing: run `npm run build` first (docs:check checks the examples against the built package).',
    );
  }
  const all = [];
  for (const file of await markdownFiles()) {
    all.push(...extractBlocks(file, await readFile(path.join(root, file), 'utf8')));
  }
  const blocks = await writeBlocks(all);
  const runnable = blocks.filter((b) => b.runnable).length;
  process.stderr.write(
    `docs:check: ${blocks.length} TypeScript blocks (${runnable} runnable) in README.md and docs/\n`,
  );
  const problems = [...(await checkReadmeLinks()), ...(await typeCheck(blocks))];
  if (problems.length === 0) problems.push(...(await runBlocks(blocks)));
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n\ndocs:check: ${problems.length} problem(s)\n`);
    process.exitCode = 1;
    return;
  }
  process.stderr.write('docs:check: every block type-checks against dist/ and every runnable block ran\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
