/**
 * `taoloop test CASES.jsonl --model SPEC`: the cases half of `taoloop test` (see `test.ts`). Every input is
 * checked in {@link prepareCases}, before any model is called; {@link testCases} runs the tries (resumable
 * from `--out`'s `results.jsonl`), prints a summary and writes the reports.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pc from 'picocolors';
import type { CaseConfig } from '../../eval/case-runner.js';
import type { AgentCase, CaseScorer, CaseTrial } from '../../eval/cases.js';
import type { CasesSummary, ConfigComparison } from '../../eval/pass-k.js';
import { fingerprint } from '../../util/fingerprint.js';
import { errorMessage } from '../../util/own.js';
import { EXIT, UsageError } from '../errors.js';
import { safeText } from '../safe-text.js';
import { prepareAgent } from '../setup.js';
import { onStopSignals } from '../signals.js';
import type { AgentModule, TestCommandOptions, TestContext } from './test-options.js';

/** Cases ready to run: checked against their configurations and scorers. */
export interface PreparedCases {
  cases: AgentCase[];
  configs: CaseConfig[];
  scorers: Record<string, CaseScorer>;
  /** The tries of an earlier run to compare with (`--compare DIR`). */
  earlier?: CaseTrial[];
}

/** What the cases gave: exit code, the `--json` part, the summaries (for JUnit). */
export interface CasesOutcome {
  code: number;
  json: unknown;
  summaries: CasesSummary[];
}

/**
 * Reads and checks everything the cases need: the files (at least one case), the models, `--out` (a
 * folder, or nothing yet), `--compare` (an earlier run's results of one configuration), scorer names and
 * tool names in the cases.
 *
 * @throws {UsageError} saying what is wrong and what to do.
 */
export async function prepareCases(
  files: readonly string[],
  options: TestCommandOptions,
  context: TestContext,
  module: AgentModule | undefined,
): Promise<PreparedCases> {
  const [{ parseCases }, { checkCases, configRequest }, { readResults }] = await Promise.all([
    import('../../eval/cases.js'),
    import('../../eval/case-runner.js'),
    import('../../eval/results.js'),
  ]);
  const cases: AgentCase[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`${file} cannot be read: ${errorMessage(error)}`);
    }
    let parsed: AgentCase[];
    try {
      parsed = parseCases(text, file);
    } catch (error) {
      throw new UsageError(errorMessage(error), undefined, { literal: true });
    }
    if (parsed.length === 0) {
      throw new UsageError(
        `${file} holds no cases: write one JSON line per case, such as {"question": "...", "expect": {"answer": "..."}}.`,
      );
    }
    const clash = parsed.find((c) => cases.some((other) => other.id === c.id));
    if (clash)
      throw new UsageError(
        `the case id "${clash.id}" is in ${file} and in an earlier file; give each case its own id.`,
      );
    cases.push(...parsed);
  }
  if (existsSync(options.out) && !statSync(options.out).isDirectory()) {
    throw new UsageError(`--out ${options.out} is a file; give a folder for the results and reports.`);
  }
  const earlier = options.compare === undefined ? undefined : readEarlier(options.compare, readResults);
  if (earlier !== undefined && options.compareModel !== undefined) {
    throw new UsageError(
      'give --compare DIR or --compare-model SPEC, not both: each compares this run with one other.',
    );
  }
  const specs = [options.model, ...(options.compareModel !== undefined ? [options.compareModel] : [])];
  const configs: CaseConfig[] = [];
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
  const scorers = module?.scorers ?? {};
  try {
    const tools = new Map<string, string[]>();
    for (const config of configs) tools.set(config.label, (await configRequest(config.agent)).tools);
    checkCases(cases, tools, scorers);
  } catch (error) {
    throw new UsageError(errorMessage(error), undefined, { literal: true });
  }
  return { cases, configs, scorers, ...(earlier !== undefined && { earlier }) };
}

/** The tries in `DIR/results.jsonl` of an earlier run (one configuration). @throws {UsageError} otherwise. */
function readEarlier(dir: string, read: (file: string) => CaseTrial[]): CaseTrial[] {
  const file = join(dir, 'results.jsonl');
  if (!existsSync(file))
    throw new UsageError(
      `--compare ${dir} has no results.jsonl: give the --out folder of an earlier taoloop test run.`,
    );
  let trials: CaseTrial[];
  try {
    trials = read(file);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const configs = [...new Set(trials.map((t) => t.config))];
  if (configs.length !== 1) {
    throw new UsageError(
      `--compare ${dir} holds tries of ${configs.length === 0 ? 'no configuration' : `${configs.length} configurations (${configs.join(', ')})`}; compare with the results of a run of one model.`,
    );
  }
  return trials;
}

/** Runs the prepared cases, prints the summary, writes the reports; returns the exit code and JSON. */
export async function testCases(prepared: PreparedCases, options: TestCommandOptions): Promise<CasesOutcome> {
  const [{ runCases }, { summarizeTrials, compareConfigs }, report, { createTraceWriter }, results] =
    await Promise.all([
      import('../../eval/case-runner.js'),
      import('../../eval/pass-k.js'),
      import('../../eval/case-report.js'),
      import('../../trace/trace.js'),
      import('../../eval/results.js'),
    ]);
  const { cases, configs, scorers } = prepared;
  const out = options.out;
  const resultsFile = join(out, 'results.jsonl');
  let stored: CaseTrial[];
  try {
    stored = results.readResults<CaseTrial>(resultsFile);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const appender = results.openResultsFile<CaseTrial>(resultsFile);
  const controller = new AbortController();
  const stopSignals = onStopSignals((signal) => controller.abort(new Error(`interrupted (${signal})`)));
  let run: Awaited<ReturnType<typeof runCases>>;
  try {
    run = await runCases({
      cases,
      configs,
      repeats: options.repeats,
      scorers,
      store: { results: stored, append: (t) => appender.append(t) },
      concurrency: options.concurrency,
      signal: controller.signal,
      trace: ({ config, caseId, trial, question }) => {
        const file = join(out, 'traces', fileName(config), `${fileName(caseId)}-${trial + 1}.jsonl`);
        return createTraceWriter(file, { question, modelId: config, meta: { case: caseId, trial } });
      },
      onResult: (trial) => {
        if (!options.json)
          process.stderr.write(
            `${trial.passed ? pc.green('pass') : pc.red('fail')} ${safeText(trial.caseId)} try ${trial.trial + 1}${configs.length > 1 ? ` (${safeText(trial.config)})` : ''}\n`,
          );
      },
    });
  } finally {
    stopSignals();
    appender.close();
  }
  const caseIds = cases.map((c) => c.id);
  const byConfig = configs.map((c) => run.trials.filter((t) => t.config === c.label));
  const summaries = byConfig.map((trials) => summarizeTrials(trials, { k: options.repeats, caseIds }));
  const comparison: ConfigComparison | undefined =
    byConfig.length === 2
      ? compareConfigs(byConfig[0] ?? [], byConfig[1] ?? [])
      : prepared.earlier !== undefined
        ? compareConfigs(prepared.earlier, byConfig[0] ?? [])
        : undefined;
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
    ...(comparison && summaries[0] && { comparison: report.casesJson(summaries[0], comparison).comparison }),
    ran: run.ran,
    resumed: run.resumed,
    interrupted: run.interrupted,
    ...(run.stoppedBy !== undefined && { stoppedBy: run.stoppedBy }),
  };
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(out, 'chart.svg'), report.renderCasesSvg(summaries));
  writeFileSync(join(out, 'junit.xml'), report.renderJUnitXml(summaries));
  if (!options.json) {
    process.stdout.write(`${summaries.map((s) => summaryText(s, options.repeats)).join('\n')}\n`);
    if (comparison) process.stdout.write(`${comparisonText(comparison)}\n`);
    process.stdout.write(
      pc.dim(
        `${run.ran} tries run now, ${run.resumed} reused from ${resultsFile}. Reports: ${join(out, 'report.md')}, report.json, chart.svg, junit.xml; each try's trace under ${join(out, 'traces')}\n`,
      ),
    );
  }
  return { code: exitCode(run, summaries, cases, options), json, summaries };
}

/** 1 when the run stopped early, a try ended with a model error, or pass^k is under `--min-pass`; else 0. */
function exitCode(
  run: { interrupted: boolean; stoppedBy?: string; trials: CaseTrial[] },
  summaries: readonly CasesSummary[],
  cases: readonly AgentCase[],
  options: TestCommandOptions,
): number {
  const say = (text: string) => process.stderr.write(`taoloop: ${safeText(text)}\n`);
  if (run.interrupted) {
    say(
      `stopped before every try ran${run.stoppedBy ? `: ${run.stoppedBy}` : ''}; run the same command again to go on.`,
    );
    return EXIT.noAnswer;
  }
  const expectsError = new Set(cases.filter((c) => c.expect.status === 'error').map((c) => c.id));
  const failed = run.trials.filter((t) => t.status === 'error' && !expectsError.has(t.caseId));
  if (failed.length > 0) {
    say(
      `${failed.length} ${failed.length === 1 ? 'try' : 'tries'} ended with a model error (the first: ${failed[0]?.error ?? 'unknown'}); fix the model or its server and run the same command again: only those run again.`,
    );
    return EXIT.noAnswer;
  }
  if (options.minPass !== undefined) {
    for (const summary of summaries) {
      const passK = summary.passK.find((p) => p.k === options.repeats)?.value;
      if (passK === undefined || passK < options.minPass) {
        say(
          `pass^${options.repeats} of ${summary.config} is ${passK === undefined ? 'unknown' : passK.toFixed(3)}, below --min-pass ${options.minPass}.`,
        );
        return EXIT.noAnswer;
      }
    }
  }
  return EXIT.answered;
}

const percent = (value: number | undefined) => (value === undefined ? '—' : `${(value * 100).toFixed(1)}%`);
const usd = (value: number | undefined) =>
  value === undefined ? 'unknown (no price: --price IN/OUT)' : `$${value.toFixed(4)}`;

/** A configuration's figures as plain text for the terminal. */
function summaryText(summary: CasesSummary, k: number): string {
  const lines = [
    pc.bold(`${safeText(summary.config)}: ${summary.tasks} cases × ${k} ${k === 1 ? 'try' : 'tries'}`),
    `  ${summary.passK.map((p) => `pass^${p.k} ${percent(p.value)}`).join('  ')}   pass rate ${percent(summary.passRate)}`,
    `  cost per try ${usd(summary.costPerTaskUsd)}${summary.totalCostUsd !== undefined ? ` (total ${usd(summary.totalCostUsd)})` : ''} · latency p50 ${summary.latencyMs.p50 ?? '—'} ms, p95 ${summary.latencyMs.p95 ?? '—'} ms · steps p50 ${summary.steps.p50 ?? '—'}, p95 ${summary.steps.p95 ?? '—'}`,
  ];
  for (const failing of summary.failing) {
    const first = failing.failing[0];
    const detail = first?.checks.find((c) => !c.passed);
    lines.push(
      pc.red(
        `  ✗ ${safeText(failing.caseId)}: passed ${failing.passes} of ${failing.trials}${detail ? ` · ${safeText(`${detail.name}: ${detail.detail}`).slice(0, 200)}` : ''}${first?.trace ? ` · ${safeText(first.trace)}` : ''}`,
      ),
    );
  }
  if (summary.failing.length === 0 && summary.trials > 0)
    lines.push(pc.green('  every try of every case passed'));
  return lines.join('\n');
}

/** A comparison as one line for the terminal. */
function comparisonText(c: ConfigComparison): string {
  const rate = c.passRate;
  if (rate === undefined)
    return `No cases in common between ${safeText(c.configA)} and ${safeText(c.configB)}.`;
  const points = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
  const verdict =
    c.better === 'neither'
      ? 'no clear difference'
      : `${safeText(c.better === 'a' ? c.configA : c.configB)} is better`;
  return `${pc.bold('Side by side')} (${c.cases.length} paired cases): pass rate ${safeText(c.configA)} ${percent(rate.meanA)} → ${safeText(c.configB)} ${percent(rate.meanB)}, difference ${points(rate.difference)} points (${Math.round(c.confidence * 100)}% interval ${points(rate.interval.low)} to ${points(rate.interval.high)}): ${verdict}`;
}

/**
 * A config label or case id as a file name: letters, digits, `.`, `_`, `-` kept; when anything else had to
 * change (or the name was cut), a short fingerprint of the original keeps two names from meeting.
 */
function fileName(name: string): string {
  const safe =
    name
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 100) || '_';
  return safe === name ? safe : `${safe}~${fingerprint(name).slice(0, 8)}`;
}
