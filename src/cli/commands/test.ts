/**
 * `taoloop test PATHS...`: tests for an agent, from the command line.
 *
 * - **Recorded runs** (trace files, or folders of them): each is replayed against today's tools, prompt and
 *   parser (`checkTrace`), and whatever came out otherwise is printed as a diff. Exit 0 only when nothing
 *   diverged; `--update` accepts today's behaviour into the fixtures.
 * - **Cases** (a JSONL file of cases): each runs `--repeats k` times against the live `--model` (and
 *   `--compare-model`), scored, with pass^k, cost per task and latency; reports in `--out` (`test-cases.ts`).
 *   `--min-pass` makes it a CI gate.
 *
 * One report for both: `--json` prints one document, `--junit` writes one file.
 *
 * A trace is data, never permission: from it come the model turns and, when the command line does not say,
 * which built-in tools, mode and language the run had; never folders, approvals or `--yes`.
 *
 * @module
 */
import { lstatSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pc from 'picocolors';
import type { AgentConfig } from '../../agent/options.js';
import type { RecordedRunResult } from '../../eval/case-report.js';
import type { CaseScorer } from '../../eval/cases.js';
import type { TraceMasks } from '../../eval/trace-check.js';
import type { Model } from '../../models/types.js';
import type { LabelLanguage } from '../../react/labels.js';
import type { Trace } from '../../trace/trace-format.js';
import { errorMessage } from '../../util/own.js';
import { EXIT, UsageError } from '../errors.js';
import type { RunCommandOptions } from '../options.js';
import { safeText } from '../safe-text.js';
import { prepareAgent, type RecordedCliOptions } from '../setup.js';
import { type CasesOutcome, prepareCases, testCases } from './test-cases.js';
import type { AgentModule, TestCommandOptions, TestContext } from './test-options.js';

export type { AgentModule, TestCommandOptions, TestContext } from './test-options.js';

/** The most tries per case `--repeats` takes (pass^k is rarely reported past k = 32). */
export const MAX_REPEATS = 1000;

/** Runs `taoloop test` and returns the exit code. */
export async function testCommand(
  paths: readonly string[],
  options: TestCommandOptions,
  context: TestContext,
): Promise<number> {
  if (options.repeats > MAX_REPEATS) {
    throw new UsageError(
      `--repeats ${options.repeats} is more than ${MAX_REPEATS} tries per case; give ${MAX_REPEATS} or fewer.`,
    );
  }
  const { traces, caseFiles } = await sortPaths(paths);
  const module = options.agent === undefined ? undefined : await loadAgentModule(options.agent, context.cwd);
  if (module) {
    const ignored = ['tools', 'system', 'examples', 'mode'].filter((key) => context.onCommandLine.has(key));
    if (ignored.length > 0) {
      throw new UsageError(
        `--agent gives the agent's tools and prompt; drop ${ignored.map(flagOf).join(', ')}, or leave out --agent.`,
      );
    }
  }
  // Every check of the cases' inputs comes before any trace is replayed or any model is called.
  const cases = caseFiles.length > 0 ? await prepareCases(caseFiles, options, context, module) : undefined;
  const runs = traces.length > 0 ? await testTraces(traces, options, context, module) : undefined;
  const outcome: CasesOutcome | undefined = cases ? await testCases(cases, options) : undefined;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ ...(runs && { recordedRuns: runs.json }), ...(outcome && { cases: outcome.json }) }, null, 2)}\n`,
    );
  }
  if (options.junit !== undefined) {
    const { renderJUnitXml } = await import('../../eval/case-report.js');
    mkdirSync(dirname(resolve(context.cwd, options.junit)), { recursive: true });
    writeFileSync(
      options.junit,
      renderJUnitXml(outcome?.summaries ?? [], { recordedRuns: runs?.junit ?? [] }),
    );
  }
  return Math.max(runs?.code ?? EXIT.answered, outcome?.code ?? EXIT.answered);
}

const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * Sorts the paths into trace files (a folder's traces, or a file whose first line is a trace header) and
 * cases files (any other file).
 *
 * @throws {UsageError} for a path that does not exist, is neither a file nor a folder, or when nothing is found.
 */
async function sortPaths(paths: readonly string[]): Promise<{ traces: string[]; caseFiles: string[] }> {
  const { findTraceFiles, isTraceFile } = await import('../../eval/trace-files.js');
  const traces: string[] = [];
  const caseFiles: string[] = [];
  for (const path of paths) {
    let kind: 'folder' | 'file' | 'other';
    try {
      const stat = statSync(path);
      kind = stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
    } catch {
      throw new UsageError(
        `${path} does not exist: give trace files, folders of them, or a cases file (JSONL).`,
      );
    }
    if (kind === 'other') throw new UsageError(`${path} is not a regular file or a folder.`);
    if (kind === 'folder') traces.push(...(await findTraceFiles([path])));
    else if (await isTraceFile(path)) traces.push(path);
    else caseFiles.push(path);
  }
  if (traces.length === 0 && caseFiles.length === 0) {
    throw new UsageError(
      `no trace files found in ${paths.join(', ')}: record runs with taoloop run (they are kept in .taoloop/runs) and copy them into a folder of fixtures.`,
    );
  }
  return { traces, caseFiles };
}

/** The replays' outcome: exit code, the `--json` part and the JUnit suite. */
interface TracesOutcome {
  code: number;
  json: { traces: unknown[]; passed: number; failed: number; updated: number };
  junit: RecordedRunResult[];
}

/**
 * Replays each trace and prints its diff; exit 0 when every one replayed as recorded (or was updated). A
 * trace that cannot be replayed (unreadable, unfinished, needing a person or a folder not given) fails on
 * its own, naming its file; the others are still checked.
 */
async function testTraces(
  files: readonly string[],
  options: TestCommandOptions,
  context: TestContext,
  module: AgentModule | undefined,
): Promise<TracesOutcome> {
  const [{ checkTraceFile }, { formatTraceCheck }, { readTrace }] = await Promise.all([
    import('../../eval/trace-files.js'),
    import('../../eval/trace-check.js'),
    import('../../trace/trace.js'),
  ]);
  const mask = parseMasks(options.mask);
  const outcome: TracesOutcome = {
    code: EXIT.answered,
    json: { traces: [], passed: 0, failed: 0, updated: 0 },
    junit: [],
  };
  const print = (text: string) => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  for (const file of files) {
    const started = Date.now();
    let check: Awaited<ReturnType<typeof checkTraceFile>>;
    try {
      const trace = readTrace(file);
      if (trace.result === undefined) {
        throw new Error(
          'the recording did not finish (the run crashed or was cut off), so it cannot be a fixture; record it again',
        );
      }
      const agent = module?.agent ?? (await cliAgent(trace, options, context));
      check = await checkTraceFile(file, { ...agent, mask, update: options.update });
    } catch (error) {
      const message = `cannot be replayed: ${errorMessage(error)}`;
      outcome.json.failed += 1;
      outcome.json.traces.push({ file, passed: false, error: message });
      outcome.junit.push({ file, passed: false, message, detail: message, durationMs: Date.now() - started });
      print(pc.red(`FAIL ${safeText(file)}  ${safeText(message)}`));
      continue;
    }
    if (check.updated) outcome.json.updated += 1;
    else if (check.passed) outcome.json.passed += 1;
    else outcome.json.failed += 1;
    const { passed, stale, differences, updated } = check;
    outcome.json.traces.push({ file, passed, stale, updated, status: check.result.status, differences });
    const text = formatTraceCheck(check, file);
    outcome.junit.push({
      file,
      passed: passed || updated,
      message: differences[0]?.summary ?? 'replayed as recorded',
      detail: text,
      durationMs: Date.now() - started,
    });
    print(
      `${colorDiff(safeText(text))}${updated ? pc.yellow('\n  updated: the fixture now holds today’s run') : ''}`,
    );
  }
  const { passed, failed, updated } = outcome.json;
  const parts = [
    `${passed} passed`,
    ...(failed > 0 ? [pc.red(`${failed} failed`)] : []),
    ...(updated > 0 ? [`${updated} updated`] : []),
  ];
  print(
    `— ${files.length} recorded run${files.length === 1 ? '' : 's'}: ${parts.join(', ')}${failed > 0 && !options.update ? ' (accept today’s behaviour with --update)' : ''}`,
  );
  outcome.code = failed > 0 ? EXIT.noAnswer : EXIT.answered;
  return outcome;
}

/** Colours the `-` and `+` lines of a diff (a no-op without colours). */
function colorDiff(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      /^ {4}- /.test(line)
        ? pc.red(line)
        : /^ {4}\+ /.test(line)
          ? pc.green(line)
          : /^FAIL /.test(line)
            ? pc.red(line)
            : line,
    )
    .join('\n');
}

/** The folder each built-in tool needs, so a folder flag goes only to the traces whose tools use it. */
const FOLDER_OF: Readonly<Record<string, 'docs' | 'root' | 'wikiCorpus'>> = {
  search: 'docs',
  read_file: 'root',
  run_tests: 'root',
  wikipedia: 'wikiCorpus',
};

/**
 * The agent a CLI-recorded trace is replayed against: today's options, where the command line (or its
 * environment or config file) gives them, else the trace's recorded built-in tools, mode and language
 * (names only: folders and approvals come from this command line alone).
 *
 * @throws {UsageError} for a trace whose tools need a person (`human`), or options its tools cannot use.
 */
async function cliAgent(
  trace: Trace,
  options: TestCommandOptions,
  context: TestContext,
): Promise<Omit<AgentConfig, 'model'>> {
  const recorded = trace.header.meta?.cli as Partial<RecordedCliOptions> | undefined;
  const pick = <K extends 'tools' | 'mode' | 'lang'>(key: K, value: RunCommandOptions[K] | undefined) =>
    context.given.has(key) || value === undefined ? options[key] : value;
  const recordedTools = Array.isArray(recorded?.tools)
    ? recorded.tools.filter((t): t is string => typeof t === 'string').join(',')
    : undefined;
  const tools = pick('tools', recordedTools);
  const names = (tools ?? 'calculator').split(',').map((t) => t.trim());
  if (names.includes('human')) {
    throw new UsageError(
      'its run used the human tool, which asks a person at the terminal: a replay runs unattended. Replay it with --agent and a tool of your own in its place.',
    );
  }
  // A folder flag goes only to the traces whose tools use it (one command can check traces of several tool sets).
  const used = new Set(names.flatMap((name) => (Object.hasOwn(FOLDER_OF, name) ? [FOLDER_OF[name]] : [])));
  const merged: RunCommandOptions = {
    ...options,
    ...(tools !== undefined && { tools }),
    mode: pick('mode', isMode(recorded?.mode) ? recorded.mode : undefined),
    lang: pick('lang', isLang(recorded?.lang) ? recorded.lang : undefined) as LabelLanguage,
  };
  for (const folder of ['docs', 'root', 'wikiCorpus'] as const) if (!used.has(folder)) delete merged[folder];
  const placeholder: Model = {
    id: trace.header.modelId,
    generate: () => Promise.reject(new Error('the replay gives the model turns')),
  };
  const { agent } = await prepareAgent(merged, {
    command: 'run',
    cwd: context.cwd,
    env: context.env,
    config: context.config,
    model: placeholder,
  });
  const { model: _model, maxSteps, ...rest } = agent;
  return {
    ...rest,
    ...(context.given.has('maxSteps') && { maxSteps }),
    modelSettings: { ...rest.modelSettings, streaming: false },
  };
}

const isMode = (v: unknown): v is RunCommandOptions['mode'] => v === 'text' || v === 'native' || v === 'auto';
const isLang = (v: unknown): v is LabelLanguage => v === 'en' || v === 'pt' || v === 'fr' || v === 'id';

/**
 * `--mask tool=regex` (repeatable; `*=regex` for every tool) as masks.
 *
 * @throws {UsageError} for a mask without `=` or with an invalid regular expression.
 */
export function parseMasks(masks: readonly string[]): TraceMasks {
  const out: Record<string, string[]> = {};
  for (const mask of masks) {
    const at = mask.indexOf('=');
    if (at <= 0)
      throw new UsageError(
        `--mask "${mask}" needs the form TOOL=REGEX, e.g. --mask 'clock=\\d\\d:\\d\\d' (TOOL * masks every tool).`,
      );
    const tool = mask.slice(0, at);
    const pattern = mask.slice(at + 1);
    try {
      new RegExp(pattern, 'g');
    } catch (error) {
      throw new UsageError(`--mask "${mask}": ${errorMessage(error)}.`);
    }
    if (!Object.hasOwn(out, tool)) out[tool] = [];
    out[tool]?.push(pattern);
  }
  return out;
}

/**
 * Loads an `--agent` module: its default export (an object, or a function returning one, possibly async)
 * gives the agent but its model: `tools`, `instructions`, `prompt`, `limits`, `modelSettings`, `output`,
 * `maxSteps`, `hooks`; its `scorers` export names scorer functions for `expect.scorer`.
 *
 * @throws {UsageError} when it cannot be imported, its function throws, or it gives no list of tools.
 */
async function loadAgentModule(spec: string, cwd: string): Promise<AgentModule> {
  const path = resolve(cwd, spec);
  try {
    if (!lstatSync(path).isFile() && !statSync(path).isFile()) throw new Error('not a file');
  } catch (error) {
    throw new UsageError(`--agent ${spec}: ${errorMessage(error)}. Give a JavaScript module (.mjs or .js).`);
  }
  let loaded: { default?: unknown; scorers?: unknown };
  let value: unknown;
  try {
    loaded = (await import(pathToFileURL(path).href)) as typeof loaded;
    value = typeof loaded.default === 'function' ? await (loaded.default as () => unknown)() : loaded.default;
  } catch (error) {
    throw new UsageError(`--agent ${spec} failed to load: ${errorMessage(error)}`);
  }
  const tools = (value as { tools?: unknown } | null | undefined)?.tools;
  if (typeof value !== 'object' || value === null || !Array.isArray(tools)) {
    throw new UsageError(
      `--agent ${spec} must export default the agent's options (at least { tools: [...] }), or a function that returns them.`,
    );
  }
  tools.forEach((tool: unknown, i) => {
    const t = tool as { name?: unknown; description?: unknown; run?: unknown } | null;
    if (
      typeof t !== 'object' ||
      t === null ||
      typeof t.name !== 'string' ||
      typeof t.description !== 'string' ||
      typeof t.run !== 'function'
    ) {
      throw new UsageError(
        `--agent ${spec}: tools[${i}] is not a tool; a tool is { name, description, run(input) } (see defineTool).`,
      );
    }
  });
  const { model: _model, ...agent } = value as AgentConfig;
  const scorers =
    typeof loaded.scorers === 'object' && loaded.scorers !== null
      ? (loaded.scorers as Record<string, CaseScorer>)
      : {};
  return { agent, scorers };
}
