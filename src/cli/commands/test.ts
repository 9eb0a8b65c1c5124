/**
 * `taoloop test PATHS...`: tests for an agent, from the command line.
 *
 * - **Recorded runs** (trace files, or folders of them): each is replayed against today's tools, prompt and
 *   parser (`checkTrace`), and whatever came out otherwise is printed as a diff. Exit 0 only when nothing
 *   diverged; `--update` accepts today's behaviour into the fixtures.
 * - **Cases** (a JSONL file of cases): each runs `--repeats k` times against the live `--model` (and
 *   `--compare-model`), scored, with pass^k, cost per task and latency; reports in `--out`. `--min-pass`
 *   makes it a CI gate.
 *
 * A trace is data, never permission: from it come the model turns and, when the command line does not say,
 * which built-in tools, mode and language the run had; never folders, approvals or `--yes`.
 *
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pc from 'picocolors';
import type { AgentConfig } from '../../agent/options.js';
import type { AgentCase, CaseScorer, CaseTrial } from '../../eval/cases.js';
import type { TraceMasks } from '../../eval/trace-check.js';
import type { Model } from '../../models/types.js';
import type { LabelLanguage } from '../../react/labels.js';
import type { Trace } from '../../trace/trace-format.js';
import { errorMessage } from '../../util/own.js';
import { EXIT, UsageError } from '../errors.js';
import type { RunCommandOptions } from '../options.js';
import { safeText } from '../safe-text.js';
import { prepareAgent, type RecordedCliOptions } from '../setup.js';
import { onStopSignals } from '../signals.js';

/** Options of `taoloop test`: those of `run` plus the test's own. */
export interface TestCommandOptions extends RunCommandOptions {
  update: boolean;
  mask: string[];
  agent?: string;
  repeats: number;
  concurrency: number;
  out: string;
  minPass?: number;
  compareModel?: string;
  compare?: string;
  junit?: string;
}

/** Where the command runs, and which options were given rather than defaulted. */
export interface TestContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: string | undefined;
  /** Option keys given on the command line, in the environment or in the config file. */
  given: ReadonlySet<string>;
}

/** What an `--agent` module gives: the agent but its model, and scorers for `expect.scorer`. */
interface AgentModule {
  agent: Omit<AgentConfig, 'model'>;
  scorers: Record<string, CaseScorer>;
}

/** Runs `taoloop test` and returns the exit code. */
export async function testCommand(
  paths: readonly string[],
  options: TestCommandOptions,
  context: TestContext,
): Promise<number> {
  const { findTraceFiles, isTraceFile } = await import('../../eval/trace-files.js');
  const traces: string[] = [];
  const caseFiles: string[] = [];
  for (const path of paths) {
    let folder: boolean;
    try {
      folder = (await import('node:fs')).statSync(path).isDirectory();
    } catch {
      throw new UsageError(
        `${path} does not exist: give trace files, folders of them, or a cases file (JSONL).`,
      );
    }
    if (folder) traces.push(...(await findTraceFiles([path])));
    else if (await isTraceFile(path)) traces.push(path);
    else caseFiles.push(path);
  }
  if (traces.length === 0 && caseFiles.length === 0) {
    throw new UsageError(
      `no trace files found in ${paths.join(', ')}: record runs with taoloop run (they are kept in .taoloop/runs) and copy them into a folder of fixtures.`,
    );
  }
  const module = options.agent === undefined ? undefined : await loadAgentModule(options.agent, context.cwd);
  let code: number = EXIT.answered;
  if (traces.length > 0) code = Math.max(code, await testTraces(traces, options, context, module));
  if (caseFiles.length > 0) code = Math.max(code, await testCases(caseFiles, options, context, module));
  return code;
}

/** Replays each trace and prints its diff; 0 when every one replayed as recorded (or was updated). */
async function testTraces(
  files: readonly string[],
  options: TestCommandOptions,
  context: TestContext,
  module: AgentModule | undefined,
): Promise<number> {
  const [{ checkTraceFile }, { formatTraceCheck }, { readTrace }] = await Promise.all([
    import('../../eval/trace-files.js'),
    import('../../eval/trace-check.js'),
    import('../../trace/trace.js'),
  ]);
  const mask = parseMasks(options.mask);
  const reports = [];
  let failed = 0;
  let updated = 0;
  for (const file of files) {
    const trace = readTrace(file);
    const agent = module?.agent ?? (await cliAgent(trace, options, context));
    const check = await checkTraceFile(file, { ...agent, mask, update: options.update });
    if (check.updated) updated += 1;
    else if (!check.passed) failed += 1;
    if (options.json) {
      const { file: name, passed, stale, differences, updated: wasUpdated } = check;
      reports.push({
        file: name,
        passed,
        stale,
        updated: wasUpdated,
        status: check.result.status,
        differences,
      });
    } else {
      const text = safeText(formatTraceCheck(check, file));
      process.stdout.write(
        `${colorDiff(text)}${check.updated ? pc.yellow('\n  updated: the fixture now holds today’s run') : ''}\n`,
      );
    }
  }
  const passed = files.length - failed - updated;
  if (options.json)
    process.stdout.write(`${JSON.stringify({ traces: reports, passed, failed, updated }, null, 2)}\n`);
  else {
    const parts = [
      `${passed} passed`,
      ...(failed > 0 ? [pc.red(`${failed} failed`)] : []),
      ...(updated > 0 ? [`${updated} updated`] : []),
    ];
    process.stdout.write(
      `— ${files.length} recorded run${files.length === 1 ? '' : 's'}: ${parts.join(', ')}${failed > 0 ? ' (accept today’s behaviour with --update)' : ''}\n`,
    );
  }
  return failed > 0 ? EXIT.noAnswer : EXIT.answered;
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

/**
 * The agent a CLI-recorded trace is replayed against: today's options, where the command line (or its
 * environment or config file) gives them, else the trace's recorded built-in tools, mode and language
 * (names only: folders and approvals come from this command line alone).
 */
async function cliAgent(
  trace: Trace,
  options: TestCommandOptions,
  context: TestContext,
): Promise<Omit<AgentConfig, 'model'>> {
  const recorded = trace.header.meta?.cli as Partial<RecordedCliOptions> | undefined;
  const pick = <K extends 'tools' | 'mode' | 'lang'>(key: K, value: RunCommandOptions[K] | undefined) =>
    context.given.has(key) || value === undefined ? options[key] : value;
  const tools = Array.isArray(recorded?.tools)
    ? recorded.tools.filter((t) => typeof t === 'string').join(',')
    : undefined;
  const pickedTools = pick('tools', tools);
  const merged: RunCommandOptions = {
    ...options,
    ...(pickedTools !== undefined && { tools: pickedTools }),
    mode: pick('mode', isMode(recorded?.mode) ? recorded.mode : undefined),
    lang: pick('lang', isLang(recorded?.lang) ? recorded.lang : undefined) as LabelLanguage,
  };
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
 * @throws {UsageError} when it cannot be imported or gives no `tools` array.
 */
async function loadAgentModule(spec: string, cwd: string): Promise<AgentModule> {
  let loaded: { default?: unknown; scorers?: unknown };
  try {
    loaded = (await import(pathToFileURL(resolve(cwd, spec)).href)) as typeof loaded;
  } catch (error) {
    throw new UsageError(`--agent ${spec} could not be imported: ${errorMessage(error)}`);
  }
  const value =
    typeof loaded.default === 'function' ? await (loaded.default as () => unknown)() : loaded.default;
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { tools?: unknown }).tools)) {
    throw new UsageError(
      `--agent ${spec} must export default the agent's options (at least { tools: [...] }), or a function that returns them.`,
    );
  }
  const { model: _model, ...agent } = value as AgentConfig;
  const scorers =
    typeof loaded.scorers === 'object' && loaded.scorers !== null
      ? (loaded.scorers as Record<string, CaseScorer>)
      : {};
  return { agent, scorers };
}

/** Runs the cases files against the live model(s) and writes the reports; see the module notes. */
async function testCases(
  files: readonly string[],
  options: TestCommandOptions,
  context: TestContext,
  module: AgentModule | undefined,
): Promise<number> {
  const [{ parseCases }, { runCases }, { summarizeTrials, compareConfigs }, report, { createTraceWriter }] =
    await Promise.all([
      import('../../eval/cases.js'),
      import('../../eval/case-runner.js'),
      import('../../eval/pass-k.js'),
      import('../../eval/case-report.js'),
      import('../../trace/trace.js'),
    ]);
  const cases: AgentCase[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`${file} cannot be read: ${errorMessage(error)}`);
    }
    try {
      cases.push(...parseCases(text, file));
    } catch (error) {
      throw new UsageError(errorMessage(error));
    }
  }
  const specs = [options.model, ...(options.compareModel !== undefined ? [options.compareModel] : [])];
  const configs = [];
  for (const spec of specs) {
    const { agent } = await prepareAgent(
      { ...options, ...(spec !== undefined && { model: spec }) },
      { command: 'run', cwd: context.cwd, env: context.env, config: context.config },
    );
    configs.push({ label: agent.model.id, agent: module ? { ...module.agent, model: agent.model } : agent });
  }
  if (configs.length === 2 && configs[0]?.label === configs[1]?.label) {
    throw new UsageError(
      `--model and --compare-model are the same model (${configs[0]?.label}); compare two different ones, or two prompts with --compare DIR.`,
    );
  }
  const out = options.out;
  const resultsFile = join(out, 'results.jsonl');
  const { openResultsFile, readResults } = await import('../../eval/results.js');
  const appender = openResultsFile<CaseTrial>(resultsFile);
  const store = {
    results: readResultsOrUsage(readResults, resultsFile),
    append: (t: CaseTrial) => appender.append(t),
  };
  const controller = new AbortController();
  const stopSignals = onStopSignals((signal) => controller.abort(new Error(`interrupted (${signal})`)));
  let done = 0;
  const total = configs.length * cases.length * options.repeats;
  let run: Awaited<ReturnType<typeof runCases>>;
  try {
    run = await runCases({
      cases,
      configs,
      repeats: options.repeats,
      scorers: module?.scorers ?? {},
      store,
      concurrency: options.concurrency,
      signal: controller.signal,
      trace: ({ config, caseId, trial }) => {
        const file = join(out, 'traces', safeName(config), `${safeName(caseId)}-${trial + 1}.jsonl`);
        return createTraceWriter(file, { question: caseId, modelId: config, meta: { case: caseId, trial } });
      },
      onResult: (trial) => {
        done += 1;
        if (!options.json)
          process.stderr.write(
            `${trial.passed ? pc.green('pass') : pc.red('fail')} ${safeText(trial.config)} ${safeText(trial.caseId)} try ${trial.trial + 1} (${done} of ${total})\n`,
          );
      },
    });
  } finally {
    stopSignals();
    appender.close();
  }
  const byConfig = configs.map((c) => run.trials.filter((t) => t.config === c.label));
  const caseIds = cases.map((c) => c.id);
  const summaries = byConfig.map((trials) => summarizeTrials(trials, { k: options.repeats, caseIds }));
  const earlier =
    options.compare === undefined
      ? undefined
      : readResultsOrUsage(readResults, join(options.compare, 'results.jsonl'));
  const comparison =
    byConfig.length === 2
      ? compareConfigs(byConfig[0] ?? [], byConfig[1] ?? [])
      : earlier !== undefined
        ? compareConfigs(earlier, byConfig[0] ?? [])
        : undefined;
  const main = summaries[0];
  if (main === undefined) return EXIT.noAnswer;
  mkdirSync(out, { recursive: true });
  const markdown = summaries
    .map((s, i) =>
      report.renderCasesMarkdown(s, {
        ...(i === summaries.length - 1 && comparison && { comparison }),
        title: `taoloop test: ${s.config}`,
      }),
    )
    .join('\n\n');
  writeFileSync(join(out, 'report.md'), markdown);
  const json = {
    summaries: summaries.map((s) => report.casesJson(s).summary),
    ...(comparison && { comparison: report.casesJson(main, comparison).comparison }),
    interrupted: run.interrupted,
    ...(run.stoppedBy !== undefined && { stoppedBy: run.stoppedBy }),
  };
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(out, 'chart.svg'), report.renderCasesSvg(summaries));
  const junitText = report.renderJUnitXml(summaries);
  writeFileSync(join(out, 'junit.xml'), junitText);
  if (options.junit !== undefined) writeFileSync(options.junit, junitText);
  const passK = main.passK.find((p) => p.k === options.repeats)?.value;
  if (options.json) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else {
    process.stdout.write(`${safeText(markdown)}\n`);
    process.stdout.write(
      pc.dim(
        `Reports: ${join(out, 'report.md')}, report.json, chart.svg, junit.xml; each try's trace under ${join(out, 'traces')}\n`,
      ),
    );
  }
  if (run.interrupted) {
    process.stderr.write(
      `taoloop: stopped before every try ran${run.stoppedBy ? `: ${safeText(run.stoppedBy)}` : ''}; run the same command again to go on.\n`,
    );
    return EXIT.noAnswer;
  }
  if (options.minPass !== undefined && (passK === undefined || passK < options.minPass)) {
    process.stderr.write(
      `taoloop: pass^${options.repeats} is ${passK === undefined ? 'unknown' : passK.toFixed(3)}, below --min-pass ${options.minPass}.\n`,
    );
    return EXIT.noAnswer;
  }
  return EXIT.answered;
}

/** A config label or case id as a file name: letters, digits, `.`, `_`, `-`; anything else becomes `_`. */
function safeName(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 120) || '_'
  );
}

/** The tries stored in a results file; a file that is not one is a usage error naming it. */
function readResultsOrUsage(read: (file: string) => CaseTrial[], file: string): CaseTrial[] {
  try {
    return read(file);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}
