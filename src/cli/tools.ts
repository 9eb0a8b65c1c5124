/**
 * The tools the CLI offers, built from its options. Each builder is loaded only when its tool is asked for.
 *
 * @module
 */
import type { LabelLanguage } from '../react/labels.js';
import type { Tool } from '../tools/types.js';
import { errorMessage } from '../util/own.js';
import { UsageError } from './errors.js';

/** Options that decide which tools a CLI run gets. */
export interface CliToolOptions {
  tools?: string | undefined;
  docs?: string | undefined;
  root?: string | undefined;
  wikiCorpus?: string | undefined;
  allowUnsandboxed?: boolean | undefined;
  /** Language of the human tool's prompts. @default 'en' */
  lang?: LabelLanguage | undefined;
}

/**
 * The tool names a run gets: `--tools` when given, else calculator plus search when `--docs` is given.
 *
 * @throws {UsageError} for an unknown tool name.
 */
export function cliToolNames(options: CliToolOptions): string[] {
  const names = options.tools
    ? options.tools
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : ['calculator', ...(options.docs ? ['search'] : [])];
  const unknown = names.filter((n) => !Object.hasOwn(CLI_TOOLS, n));
  if (unknown.length) {
    throw new UsageError(
      `unknown tool ${unknown.map((n) => `"${n}"`).join(', ')} in --tools. Available: ${Object.keys(CLI_TOOLS).join(', ')}.`,
    );
  }
  return [...new Set(names)];
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
      if (!options.docs) throw new UsageError('the search tool needs a folder of documents: add --docs DIR.');
      const { createSearchTool } = await import('../tools/search.js');
      return [await createSearchTool({ docsDir: options.docs })];
    }
    case 'wikipedia': {
      const { createWikipediaTools, wikipediaApi, wikipediaCorpus } = await import('../tools/wikipedia.js');
      const backend = options.wikiCorpus ? wikipediaCorpus(options.wikiCorpus) : wikipediaApi();
      return createWikipediaTools({ backend });
    }
    case 'read_file': {
      if (!options.root) throw new UsageError('read_file needs the folder it may read: add --root DIR.');
      return [(await import('../tools/read-file.js')).createReadFileTool({ root: options.root })];
    }
    case 'run_tests': {
      if (!options.root) throw new UsageError('run_tests needs the project folder: add --root DIR.');
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
