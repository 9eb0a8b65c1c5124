/**
 * `taoloop replay FILE`: the recorded model turns run again against the real tools, and every observation
 * is compared with the recorded one. Exit 0 when all are identical, 1 when any differs.
 *
 * A trace is data, never permission: the replay takes from it only which tools the run had, the mode, the
 * language and the step count. It never takes approvals, `allowTools`/`--yes`, `--allow-unsandboxed` or
 * folders from it. Tools with side effects are asked about at the terminal like in `taoloop run` (without a
 * terminal they are refused) unless replay's own `--yes` / `--allow TOOL` say otherwise, and the folders
 * must be given on replay's own command line (`--docs`, `--root`, `--wiki-corpus`).
 *
 * @module
 */
import pc from 'picocolors';
import type { RunResult, Step } from '../../agent/types.js';
import { checkTrace, describeStep } from '../../eval/trace-check.js';
import { LABEL_SETS, type LabelLanguage } from '../../react/labels.js';
import type { Trace } from '../../trace/trace.js';
import { terminalApprover } from '../approve.js';
import { EXIT, UsageError } from '../errors.js';
import { CLI_MESSAGES } from '../i18n.js';
import { safeText } from '../safe-text.js';
import { checkAllowed, type RecordedCliOptions } from '../setup.js';
import { buildCliTools } from '../tools.js';
import { loadTrace, traceLanguage } from './trace.js';

/** Options of `taoloop replay`: the folders, the approvals (never taken from the trace), the output form. */
export interface ReplayCommandOptions {
  docs?: string;
  root?: string;
  wikiCorpus?: string;
  json: boolean;
  /** Approve every tool call with side effects without asking. @default false */
  yes?: boolean;
  /** Tools approved without asking. @default [] */
  allow?: string[];
  /** Let run_tests run without bubblewrap. @default false */
  allowUnsandboxed?: boolean;
  /** The language of taoloop's words (the approval prompt, the human tool). @default the trace's */
  lang?: LabelLanguage | undefined;
}

/** One step whose observation is not what was recorded. */
export interface ObservationDifference {
  step: number;
  action: string;
  recorded: string | null;
  /** `null` when the replay stopped before this step. */
  now: string | null;
}

/** Replays a trace and returns the exit code. */
export async function replayCommand(ref: string, options: ReplayCommandOptions): Promise<number> {
  const { file, trace } = loadTrace(ref);
  const cli = trace.header.meta?.cli as RecordedCliOptions | undefined;
  if (!cli || !Array.isArray(cli.tools))
    throw new UsageError(
      `${file} does not say which tools the run had (it was not written by taoloop run or ask), so it cannot be replayed.`,
    );
  const lang = options.lang ?? traceLanguage(trace);
  const tools = await buildCliTools({
    tools: cli.tools.join(','),
    lang,
    ...folder('docs', '--docs', cli.docs, options.docs),
    ...folder('root', '--root', cli.root, options.root),
    ...folder('wikiCorpus', '--wiki-corpus', cli.wikiCorpus, options.wikiCorpus),
    allowUnsandboxed: options.allowUnsandboxed === true,
  });
  const allow = options.allow ?? [];
  checkAllowed(allow, tools);
  // The replay of `taoloop test` (checkTrace): the recorded turns, and the recorded question or conversation.
  const { result } = await checkTrace(trace, {
    tools,
    // Enough steps for every recorded turn: the replay must never stop sooner than the recording did.
    maxSteps: Math.max(cli.maxSteps, trace.steps.length),
    approve: terminalApprover({ messages: CLI_MESSAGES[lang].approval }),
    prompt: { labels: LABEL_SETS[traceLanguage(trace)] },
    modelSettings: { mode: cli.mode, streaming: false },
    limits: { allowTools: options.yes === true ? 'all' : allow },
  });
  const differences = compareSteps(trace.steps, result.steps);
  if (options.json) {
    const summary = {
      identical: differences.length === 0,
      differences,
      recordedStatus: trace.result?.status ?? null,
      replayStatus: result.status,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    printReport(file, trace, result, differences);
  }
  return differences.length === 0 ? EXIT.answered : EXIT.noAnswer;
}

/**
 * A folder option for the replay: the one given on replay's command line. The trace's recorded folder is
 * never used by itself (a trace file could name any folder); it is only quoted in the error.
 *
 * @throws {UsageError} when the trace was recorded with the folder and the command line gives none.
 */
function folder<K extends string>(
  key: K,
  flag: string,
  recorded: unknown,
  given: string | undefined,
): { [P in K]?: string } {
  if (given !== undefined) return { [key]: given } as { [P in K]?: string };
  if (recorded === undefined) return {};
  throw new UsageError(
    `the trace was recorded with ${flag} ${JSON.stringify(String(recorded))}, but a replay never takes folders from the trace file. Give the folder yourself: add ${flag} DIR to the replay command (the recorded one, if you trust it).`,
  );
}

/** Observations that differ, step by step; recorded steps the replay never reached count as different. */
export function compareSteps(recorded: readonly Step[], replayed: readonly Step[]): ObservationDifference[] {
  const differences: ObservationDifference[] = [];
  for (const before of recorded) {
    const after = replayed.find((s) => s.index === before.index);
    const was = before.observation?.text ?? null;
    const now = after ? (after.observation?.text ?? null) : null;
    if (after && was === now) continue;
    differences.push({ step: before.index, action: describeStep(before), recorded: was, now });
  }
  return differences;
}

function printReport(file: string, trace: Trace, result: RunResult, differences: ObservationDifference[]) {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(pc.dim(`Replaying ${trace.steps.length} recorded model turns of ${safeText(file)}`));
  const differing = new Map(differences.map((d) => [d.step, d]));
  for (const step of trace.steps) {
    const d = differing.get(step.index);
    const label = `step ${step.index}  ${safeText(describeStep(step))}`;
    if (!d) {
      out(`${label}  ${pc.green('same')}`);
      continue;
    }
    out(
      `${label}  ${pc.red(d.now === null && !result.steps.some((s) => s.index === d.step) ? 'not reached' : 'differs')}`,
    );
    out(`  recorded: ${indent(safeText(d.recorded ?? '(none)'))}`);
    out(`  now:      ${indent(safeText(d.now ?? '(none)'))}`);
  }
  const recordedStatus = trace.result?.status ?? 'incomplete';
  const verdict =
    differences.length === 0
      ? pc.green('identical: every observation is the same')
      : pc.red(
          `${differences.length} of ${trace.steps.length} ${trace.steps.length === 1 ? 'step differs' : 'steps differ'}`,
        );
  out(`— ${verdict} · recorded: ${recordedStatus} · replay: ${result.status}`);
}

const indent = (text: string) => text.split('\n').join('\n            ');
