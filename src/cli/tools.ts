/**
 * The tools the CLI offers, built from its options. Each builder is loaded only when its tool is asked for.
 *
 * @module
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { LabelLanguage } from '../react/labels.js';
import type { Tool } from '../tools/types.js';
import { errorMessage } from '../util/own.js';
import { UsageError, usageError } from './errors.js';
import type { LocalizedText } from './i18n/fill.js';

/** Options that decide which tools a CLI run gets. */
export interface CliToolOptions {
  tools?: string | undefined;
  docs?: string | undefined;
  root?: string | undefined;
  wikiCorpus?: string | undefined;
  allowUnsandboxed?: boolean | undefined;
  /** Language of the human tool's prompts. @default 'en' */
  lang?: LabelLanguage | undefined;
  /** Where these options came from when not from their flags, so that a message names the right place. */
  origins?: Partial<Record<OriginKey, OptionOrigin>> | undefined;
}

/** The options whose origin a message names. */
export type OriginKey = 'tools' | 'docs' | 'root' | 'wikiCorpus';

/** Where an option's value came from when not from its flag: its environment variable or a config file. */
export type OptionOrigin = { env: string } | { configFile: string };

/** What a message calls an option's value: its flag, its environment variable, or the config file's field. */
function where(options: CliToolOptions, key: OriginKey, flag: string): string | LocalizedText {
  const origin = options.origins?.[key];
  if (origin === undefined) return flag;
  if ('env' in origin) return origin.env;
  return { key: 'inConfig', values: { field: key, file: origin.configFile } };
}

/**
 * The tool names a run gets: `--tools` when given, else calculator plus search when `--docs` is given.
 *
 * @throws {UsageError} for an unknown tool name, or a `--tools` that names none (`--tools ","`).
 */
export function cliToolNames(options: CliToolOptions): string[] {
  const names =
    options.tools !== undefined
      ? options.tools
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : ['calculator', ...(options.docs ? ['search'] : [])];
  const available = Object.keys(CLI_TOOLS).join(', ');
  const from = where(options, 'tools', '--tools');
  if (names.length === 0) {
    const given = options.tools ? ` ("${options.tools}")` : '';
    throw usageError('noTool', { where: from, given, available });
  }
  const unknown = names.filter((n) => !Object.hasOwn(CLI_TOOLS, n));
  if (unknown.length) {
    throw usageError('unknownTool', {
      names: unknown.map((n) => `"${n}"`).join(', '),
      where: from,
      available,
    });
  }
  return [...new Set(names)];
}

/**
 * Refuses a folder or file option that none of the run's tools would use: it is a mistake (a forgotten
 * `--tools search`), and silently ignoring it would let the run go on without what the person meant to give.
 *
 * @throws {UsageError} for `--docs` without search, `--root` without read_file or run_tests, `--wiki-corpus`
 * without wikipedia.
 */
export function checkToolOptions(names: readonly string[], options: CliToolOptions): void {
  if (options.docs !== undefined && !names.includes('search'))
    throw usageError('docsNeedsSearch', { where: where(options, 'docs', '--docs') });
  if (options.root !== undefined && !names.includes('read_file') && !names.includes('run_tests'))
    throw usageError('rootNeedsTool', { where: where(options, 'root', '--root') });
  if (options.wikiCorpus !== undefined && !names.includes('wikipedia'))
    throw usageError('wikiCorpusNeedsWikipedia', { where: where(options, 'wikiCorpus', '--wiki-corpus') });
}

/** Built-in tool names, with what each needs. */
export const CLI_TOOLS: Readonly<Record<string, string>> = {
  calculator: 'arithmetic',
  search: 'BM25 search over --docs DIR',
  wikipedia: "the ReAct paper's Wikipedia search and lookup (live API, or --wiki-corpus FILE)",
  read_file: 'reads files under --root DIR',
  run_tests: 'runs one test file under --root DIR in a bubblewrap sandbox (needs approval)',
  human: 'asks you at the terminal to perform an action and type what you observed',
};

/**
 * Builds the tools for a run: `--tools` when given, else calculator plus search when `--docs` is given.
 *
 * @throws {UsageError} for an unknown tool name or a tool missing what it needs.
 */
export async function buildCliTools(options: CliToolOptions): Promise<Tool[]> {
  const tools: Tool[] = [];
  for (const name of cliToolNames(options)) {
    try {
      tools.push(...(await buildTool(name, options)));
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(errorMessage(error));
    }
  }
  return tools;
}

async function buildTool(name: string, options: CliToolOptions): Promise<Tool[]> {
  switch (name) {
    case 'calculator':
      return [(await import('../tools/calculator.js')).calculator];
    case 'search': {
      if (!options.docs) throw usageError('searchNeedsDocs');
      const { createSearchTool } = await import('../tools/search.js');
      return [await createSearchTool({ docsDir: options.docs })];
    }
    case 'wikipedia': {
      const { createWikipediaTools, wikipediaApi, wikipediaCorpus } = await import('../tools/wikipedia.js');
      if (options.wikiCorpus) checkWikiCorpus(options.wikiCorpus);
      const backend = options.wikiCorpus ? wikipediaCorpus(options.wikiCorpus) : wikipediaApi();
      return createWikipediaTools({ backend });
    }
    case 'read_file': {
      if (!options.root) throw usageError('readFileNeedsRoot');
      return [(await import('../tools/read-file.js')).createReadFileTool({ root: options.root })];
    }
    case 'run_tests': {
      if (!options.root) throw usageError('runTestsNeedsRoot');
      const { createRunTestsTool } = await import('../tools/run-tests.js');
      return [
        createRunTestsTool({ root: options.root, allowUnsandboxed: options.allowUnsandboxed ?? false }),
      ];
    }
    case 'human': {
      const [{ cliHumanTool }, { CLI_MESSAGES }] = await Promise.all([
        import('./human-tool.js'),
        import('./i18n.js'),
      ]);
      return [cliHumanTool(CLI_MESSAGES[options.lang ?? 'en'])];
    }
    default:
      throw new UsageError(`unknown tool "${name}".`);
  }
}

/** How much of a corpus is read to check its first page. */
const CORPUS_PEEK_BYTES = 4 * 1024 * 1024;

/**
 * Checks `--wiki-corpus FILE` before the run, rather than at the model's first search: it exists, is a
 * file, can be read, and its first page is a `{"title": "...", "text": "..."}` JSON line.
 *
 * @throws {UsageError} saying which of these is wrong.
 */
export function checkWikiCorpus(file: string): void {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new UsageError(`the wikipedia corpus ${file} is not a file (--wiki-corpus).`);
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `the wikipedia corpus ${file} does not exist (--wiki-corpus): ${errorMessage(error)}`,
    );
  }
  let head: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(size, CORPUS_PEEK_BYTES));
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      head = buffer.subarray(0, read).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new UsageError(`cannot read the wikipedia corpus ${file} (--wiki-corpus): ${errorMessage(error)}`);
  }
  const lines = head.split('\n');
  // The last piece may be cut off by the peek; judge it only when the whole file was read.
  const complete = size <= CORPUS_PEEK_BYTES ? lines : lines.slice(0, -1);
  const first = complete.find((line) => line.trim() !== '');
  if (first === undefined) {
    if (size <= CORPUS_PEEK_BYTES)
      throw new UsageError(
        `the wikipedia corpus ${file} has no pages: expected one {"title", "text"} JSON object per line.`,
      );
    return;
  }
  let page: unknown;
  try {
    page = JSON.parse(first);
  } catch {
    page = undefined;
  }
  const fields = page as { title?: unknown; text?: unknown } | undefined;
  if (typeof fields?.title !== 'string' || typeof fields.text !== 'string') {
    throw new UsageError(
      `the wikipedia corpus ${file} is not JSONL of pages: its first line is not a {"title": "...", "text": "..."} object.`,
    );
  }
}
