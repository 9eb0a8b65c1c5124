/**
 * `taoloop eval`: the ReAct paper's strategies on HotpotQA, FEVER or a question/answer JSONL file, with a
 * progress bar, resumable per-item results and a report (table, Markdown, SVG chart); or, with
 * `--replay-trajectories FILE`, the replay of recorded runs under the paper's environment and under taoloop.
 * The harness (src/eval) and the model providers are imported only when the command runs.
 *
 * @module
 */
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import type { Dataset, EvalRun, PromptKind } from '../../eval/index.js';
import type { Model } from '../../models/types.js';
import type { LabelLanguage } from '../../react/labels.js';
import type { Tool } from '../../tools/types.js';
import { EXIT, UsageError } from '../errors.js';
import { inFlagNames } from '../flag-names.js';
import { DEFAULT_MODEL_TIMEOUT_MS, durationMs, messagesLangOption, positiveInt } from '../options.js';
import { onStopSignals } from '../signals.js';

/** Options of `taoloop eval`, as commander parses them. */
export interface EvalCommandOptions {
  dataset?: string;
  strategy: string;
  model?: string;
  limit?: number;
  concurrency: number;
  out: string;
  samples: number;
  maxSteps: number;
  prompts?: string;
  dataDir?: string;
  wikiCorpus?: string;
  replayTrajectories?: string;
  restate?: string;
  /** Limit for one model call, in ms (`--model-timeout`, `TAOLOOP_MODEL_TIMEOUT`). */
  modelTimeout: number;
  /** The language of taoloop's messages (`--lang`, `TAOLOOP_LANG`). @default 'en' */
  lang?: LabelLanguage;
}

/** Whole numbers ≥ 1 in plain digits, as everywhere in the CLI. */
const wholeNumber = positiveInt;

/** Adds `taoloop eval` to `program`; `setExit` receives the exit code (0 done, 1 interrupted, 2 usage). */
export function registerEvalCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('eval')
    .description(
      'Compare strategies (standard, cot, cot-sc, act, react, react-cot-sc, cot-sc-react) on a dataset, as in the ReAct paper.',
    )
    .option('--dataset <name|file>', 'hotpotqa, fever, or a JSONL file of {"question", "answer"} lines')
    .option('--strategy <list>', 'comma-separated strategies', 'react')
    .option('-m, --model <spec>', 'model spec, as for taoloop run (default: $TAOLOOP_MODEL)')
    .addOption(new Option('--limit <n>', 'only the first n items').argParser(wholeNumber))
    .addOption(
      new Option('--concurrency <n>', 'items run at the same time').default(4).argParser(wholeNumber),
    )
    .option('--out <dir>', 'folder for results.jsonl, report.md and chart.svg', 'taoloop-eval')
    .addOption(new Option('--samples <n>', 'CoT-SC samples (n)').default(21).argParser(wholeNumber))
    .addOption(new Option('--max-steps <n>', 'ReAct / Act step limit').default(7).argParser(wholeNumber))
    .option(
      '--prompts <file>',
      'JSON of few-shot prompts ({"react", "act", "cot", "standard"} or the paper keys) (default: the paper\'s for hotpotqa and fever, none for a FILE.jsonl)',
    )
    .option(
      '--data-dir <dir>',
      "the ReAct data folder: the paper's hotpotqa and fever items and few-shot prompts; a FILE.jsonl needs none and runs zero-shot without it or --prompts (default: $TAOLOOP_REACT_DATA, then ../shared/react-data beside the taoloop folder)",
    )
    .option(
      '--wiki-corpus <file>',
      'JSONL of {title, text} pages for the Wikipedia tools instead of the live API',
    )
    .addOption(
      new Option(
        '--model-timeout <duration>',
        'fail an item when one model call gets no complete answer within this long: 90s, 2m, 500ms, or a number of seconds (Restate workers take their own)',
      )
        .default(DEFAULT_MODEL_TIMEOUT_MS, '2m')
        .argParser(durationMs)
        .env('TAOLOOP_MODEL_TIMEOUT'),
    )
    .option(
      '--restate <ingress-url>',
      'run the react / act episodes as Restate runs on the workers behind this ingress (docs/guide/restate.md)',
    )
    .option(
      '--replay-trajectories <file>',
      'replay recorded ReAct runs (paper environment vs taoloop) and exit',
    )
    .addOption(messagesLangOption())
    .action(async (options: EvalCommandOptions) => {
      setExit(
        options.replayTrajectories !== undefined
          ? await replayTrajectoriesCommand(options.replayTrajectories, options.out)
          : await evalCommand(options),
      );
    });
}

/** Checks the options and loads the dataset and the prompts the strategies need. */
async function prepare(options: EvalCommandOptions) {
  const ev = await import('../../eval/index.js');
  const datasetSpec = options.dataset;
  if (datasetSpec === undefined)
    throw new UsageError(
      '--dataset is required: hotpotqa, fever, or a JSONL file of {"question", "answer"}.',
    );
  const { strategies, unknown } = ev.parseStrategies(options.strategy);
  if (unknown.length > 0 || strategies.length === 0) {
    throw new UsageError(
      `unknown strategy ${unknown.map((u) => `"${u}"`).join(', ') || '(none given)'}; choose from ${ev.STRATEGIES.join(', ')}.`,
    );
  }
  return configError(() => {
    const dataDir = () => ev.resolveDataDir(options.dataDir);
    const dataset = ev.loadDataset(datasetSpec, dataDir);
    const needed = [...new Set(strategies.flatMap(ev.promptsNeeded))];
    const { prompts, promptsNote } = choosePrompts(ev, dataset, needed, options, dataDir);
    return { strategies, dataset, prompts, promptsNote };
  });
}

/**
 * The prompts of an eval and a line saying which they are: `--prompts FILE`; else the paper's few-shot
 * prompts from the ReAct data folder, for hotpotqa and fever always, for a file of one's own only when the
 * folder is named (`--data-dir`, `TAOLOOP_REACT_DATA`); else zero-shot, the strategies' own instructions
 * and no examples (the paper's examples are HotpotQA and FEVER questions, not the user's).
 */
function choosePrompts(
  ev: typeof import('../../eval/index.js'),
  dataset: Dataset,
  needed: readonly PromptKind[],
  options: EvalCommandOptions,
  dataDir: () => string,
) {
  if (options.prompts !== undefined) {
    const prompts = ev.loadPrompts(dataset.kind, needed, { dataDir, promptsFile: options.prompts });
    return { prompts, promptsNote: `Prompts: ${options.prompts}` };
  }
  const builtIn = dataset.name === 'hotpotqa' || dataset.name === 'fever';
  if (builtIn || options.dataDir !== undefined || process.env[ev.DATA_DIR_ENV]?.trim()) {
    const dir = dataDir();
    const prompts = ev.loadPrompts(dataset.kind, needed, { dataDir: () => dir });
    const file = join(dir, ev.PAPER_PROMPTS[dataset.kind].file);
    return { prompts, promptsNote: `Prompts: the ReAct paper's few-shot examples (${file})` };
  }
  return {
    prompts: ev.zeroShotPrompts(dataset.kind, needed),
    promptsNote:
      "Prompts: zero-shot, no examples (--prompts FILE.json, or --data-dir for the ReAct paper's few-shot examples)",
  };
}

/** Runs `taoloop eval` and returns the exit code: 0 finished, 1 stopped before the end (Ctrl-C, errors). */
export async function evalCommand(options: EvalCommandOptions): Promise<number> {
  const ev = await import('../../eval/index.js');
  const { strategies, promptsNote, ...setup } = await prepare(options);
  const resultsFile = join(options.out, 'results.jsonl');
  const runner =
    options.restate !== undefined
      ? { runPair: await restateRunner(options, options.restate, strategies, resultsFile) }
      : await (async () => {
          const model = await buildModel(options.model, options.lang);
          return { model, createTools: await wikipediaTools(options.wikiCorpus) };
        })();
  const progressBar = ev.createProgressBar(setup.dataset.kind === 'qa' ? 'EM' : 'accuracy');
  const controller = new AbortController();
  // Ctrl-C, SIGTERM or SIGHUP: pairs in flight are dropped, finished results stay; exit 1 (not finished).
  const stopSignals = onStopSignals((signal) => controller.abort(new Error(`interrupted (${signal})`)));
  let run: EvalRun;
  try {
    run = await configError(() =>
      ev.runEval({
        ...runner,
        ...setup,
        strategies,
        resultsFile,
        concurrency: options.concurrency,
        samples: options.samples,
        maxSteps: options.maxSteps,
        modelTimeoutMs: options.modelTimeout,
        signal: controller.signal,
        onProgress: (progress) => progressBar.update(progress),
        ...(options.limit !== undefined && { limit: options.limit }),
      }),
    );
  } finally {
    progressBar.stop();
    stopSignals();
  }
  const report = ev.writeReport({
    run,
    dataset: setup.dataset,
    strategies,
    modelId:
      ('model' in runner ? runner.model.id : undefined) ??
      run.results.find((r) => r.status !== 'error')?.modelId ??
      'unknown',
    outDir: options.out,
    resultsFile,
  });
  process.stdout.write(
    `${report.table}\n\nResults: ${resultsFile}\nReport: ${report.markdownFile}, ${report.chartFile}\n${promptsNote}\n`,
  );
  if (run.stoppedBy !== undefined) process.stderr.write(`taoloop: stopped: ${inFlagNames(run.stoppedBy)}\n`);
  // Model failures are scored as wrong answers; say why on the terminal, not only in results.jsonl.
  const failed = run.results.filter((r) => r.status === 'error');
  if (failed.length > 0) {
    const first = inFlagNames(failed[0]?.error ?? 'unknown error');
    process.stderr.write(
      `taoloop: ${failed.length} of ${run.results.length} results ended in a model error, e.g.: ${first}\n`,
    );
  }
  // Tools that failed (Wikipedia unreachable offline) measured nothing about the agent: say so.
  const liveWikipedia = options.wikiCorpus === undefined && options.restate === undefined;
  let toolsDead = false;
  for (const health of ev.toolHealth(run.results, strategies)) {
    const hint =
      liveWikipedia && /wikipedia/i.test(health.sample ?? '')
        ? 'run with --wiki-corpus for an offline corpus'
        : undefined;
    const warning = ev.toolWarning(health, hint);
    if (warning !== undefined) process.stderr.write(`taoloop: warning: ${warning}\n`);
    if (ev.allToolsFailed(health)) {
      toolsDead = true;
      process.stderr.write(
        `taoloop: every ${health.strategy} item's tool calls failed: its score measures nothing.\n`,
      );
    }
  }
  if (run.interrupted) {
    process.stderr.write(
      `taoloop: not finished; ${run.results.length} results are kept in ${resultsFile}. Run the same command again to finish.\n`,
    );
    return EXIT.noAnswer;
  }
  // Every item failing means nothing was measured: that is a failed evaluation, not a score of 0.
  if (toolsDead) return EXIT.noAnswer;
  return run.results.length > 0 && failed.length === run.results.length ? EXIT.noAnswer : EXIT.answered;
}

/**
 * The pair runner of `--restate`: only the agent strategies run there, and the model and the Wikipedia
 * backend are the workers' (`taoloop worker --restate --model ... --wiki-corpus ...`), so the options that
 * choose them here are refused rather than silently ignored.
 */
async function restateRunner(
  options: EvalCommandOptions,
  ingressUrl: string,
  strategies: readonly string[],
  resultsFile: string,
) {
  const { RESTATE_EVAL_STRATEGIES, restateEvalRunner } = await import('../../restate/eval.js');
  const local = strategies.filter((s) => !(RESTATE_EVAL_STRATEGIES as readonly string[]).includes(s));
  if (local.length > 0) {
    throw new UsageError(
      `--restate runs only ${RESTATE_EVAL_STRATEGIES.join(' and ')} (agent runs) on the workers; run ${local.join(', ')} without --restate.`,
    );
  }
  for (const [flag, value] of [
    ['--model', options.model],
    ['--wiki-corpus', options.wikiCorpus],
  ] as const) {
    if (value !== undefined) {
      throw new UsageError(
        `${flag} belongs to the workers with --restate (taoloop worker --restate ${flag} ...); leave it out here.`,
      );
    }
  }
  try {
    new URL(ingressUrl);
  } catch {
    throw new UsageError(`--restate needs the ingress URL, e.g. http://127.0.0.1:8080; got "${ingressUrl}".`);
  }
  return restateEvalRunner(ingressUrl, { resultsFile });
}

/** Replays a trajectories file both ways, prints both scores and the runs that changed, writes replay.md. */
export async function replayTrajectoriesCommand(file: string, outDir: string): Promise<number> {
  const ev = await import('../../eval/index.js');
  const { existsSync, mkdirSync, writeFileSync } = await import('node:fs');
  if (!existsSync(file)) throw new UsageError(`trajectories file ${file} not found.`);
  const paper = await ev.replayRecordedRuns(file, { parser: 'paper' });
  const taoloop = await ev.replayRecordedRuns(file, { parser: 'taoloop' });
  const markdown = ev.renderReplayMarkdown(file, paper, taoloop);
  mkdirSync(outDir, { recursive: true });
  const reportFile = join(outDir, 'replay.md');
  writeFileSync(reportFile, markdown);
  process.stdout.write(`${markdown}\nReport: ${reportFile}\n`);
  return EXIT.answered;
}

/** Runs `f`, turning the harness's configuration errors into usage errors (exit 2, no stack trace). */
async function configError<T>(f: () => T | Promise<T>): Promise<T> {
  const { EvalConfigError } = await import('../../eval/index.js');
  try {
    return await f();
  } catch (error) {
    if (error instanceof EvalConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The model for a spec, or the default chain (TAOLOOP_MODEL, an API key, Ollama, the embedded model). */
async function buildModel(spec: string | undefined, lang: LabelLanguage = 'en'): Promise<Model> {
  const [{ buildModel: build }, { CLI_MESSAGES }] = await Promise.all([
    import('../setup.js'),
    import('../i18n.js'),
  ]);
  return build(spec, process.env, CLI_MESSAGES[lang]);
}

/** A factory of fresh Wikipedia tools (one pair per episode) over a local corpus or the live API. */
async function wikipediaTools(corpus: string | undefined): Promise<() => Tool[]> {
  const { createWikipediaTools, wikipediaApi, wikipediaCorpus } = await import('../../tools/wikipedia.js');
  if (corpus !== undefined) {
    const { existsSync } = await import('node:fs');
    if (!existsSync(corpus)) throw new UsageError(`--wiki-corpus ${corpus} not found.`);
  }
  // One backend for all episodes: a corpus is read once, API responses share one cache.
  const backend = corpus !== undefined ? wikipediaCorpus(corpus) : wikipediaApi();
  return () => createWikipediaTools({ backend });
}
