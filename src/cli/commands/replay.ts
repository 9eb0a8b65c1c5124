/**
 * `taoloop replay FILE`: the recorded model turns run again against the real tools (rebuilt from the CLI
 * options the trace header keeps), with the recorded approval decisions, and every observation compared
 * with the recorded one. Exit 0 when all are identical, 1 when any differs.
 *
 * @module
 */
import pc from 'picocolors';
import { runAgent } from '../../agent/loop.js';
import type { ApprovalDecision, ApproveFn, RunResult, Step } from '../../agent/types.js';
import { replayModel } from '../../models/replay.js';
import { LABEL_SETS } from '../../react/labels.js';
import type { Trace } from '../../trace/trace.js';
import { EXIT, UsageError } from '../errors.js';
import { safeText } from '../safe-text.js';
import type { RecordedCliOptions } from '../setup.js';
import { buildCliTools } from '../tools.js';
import { loadTrace, traceLanguage } from './trace.js';

/** Options of `taoloop replay`: where moved folders are now, and the output form. */
export interface ReplayCommandOptions {
  docs?: string;
  root?: string;
  wikiCorpus?: string;
  json: boolean;
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
  const tools = await buildCliTools({
    ...cli,
    tools: cli.tools.join(','),
    ...(options.docs !== undefined && { docs: options.docs }),
    ...(options.root !== undefined && { root: options.root }),
    ...(options.wikiCorpus !== undefined && { wikiCorpus: options.wikiCorpus }),
  });
  const result = await runAgent({
    model: replayModel(trace),
    question: trace.header.question,
    tools,
    labels: LABEL_SETS[traceLanguage(trace)],
    mode: cli.mode,
    // Enough steps for every recorded turn: the replay must never stop sooner than the recording did.
    maxSteps: Math.max(cli.maxSteps, trace.steps.length),
    approve: recordedApprovals(trace),
    allowTools: cli.allowTools ?? [],
    streaming: false,
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

/** The approval decisions the person made in the recorded run, given again for the same steps. */
function recordedApprovals(trace: Trace): ApproveFn {
  const decisions = new Map<number, ApprovalDecision>();
  for (const event of trace.events)
    if (event.type === 'approval-end') decisions.set(event.step, event.decision);
  return (request) =>
    decisions.get(request.step) ?? { type: 'reject', reason: 'no decision for this call in the recording' };
}

/** Observations that differ, step by step; recorded steps the replay never reached count as different. */
export function compareSteps(recorded: readonly Step[], replayed: readonly Step[]): ObservationDifference[] {
  const differences: ObservationDifference[] = [];
  for (const before of recorded) {
    const after = replayed.find((s) => s.index === before.index);
    const was = before.observation?.text ?? null;
    const now = after ? (after.observation?.text ?? null) : null;
    if (after && was === now) continue;
    differences.push({ step: before.index, action: describeTurn(before), recorded: was, now });
  }
  return differences;
}

function describeTurn(step: Step): string {
  const { turn } = step;
  switch (turn.type) {
    case 'action':
      return `${turn.tool}[${turn.input}]`;
    case 'answer':
      return `answer: ${turn.text}`;
    case 'none':
      return '(unusable turn)';
    default:
      return turn satisfies never;
  }
}

function printReport(file: string, trace: Trace, result: RunResult, differences: ObservationDifference[]) {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(pc.dim(`Replaying ${trace.steps.length} recorded model turns of ${safeText(file)}`));
  const differing = new Map(differences.map((d) => [d.step, d]));
  for (const step of trace.steps) {
    const d = differing.get(step.index);
    const label = `step ${step.index}  ${safeText(describeTurn(step))}`;
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
      : pc.red(`${differences.length} of ${trace.steps.length} steps differ`);
  out(`— ${verdict} · recorded: ${recordedStatus} · replay: ${result.status}`);
}

const indent = (text: string) => text.split('\n').join('\n            ');
