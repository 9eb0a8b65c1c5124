/**
 * Terminal rendering of agent events: the trace as it happens, then the answer (or why there is none).
 *
 * @module
 */
import pc from 'picocolors';
import type { AgentEvent, RunResult } from '../agent/types.js';
import { ENGLISH_LABELS, type LabelSet, primaryLabels } from '../react/labels.js';
import type { Turn } from '../react/turn.js';

/** Where and how to render. */
export interface RenderOptions {
  /** Print only one JSON result at the end. */
  json: boolean;
  out: NodeJS.WritableStream;
  /** Labels to print the trace with. @default ENGLISH_LABELS */
  labels?: LabelSet;
}

/** Returns a function that renders one event. */
export function createRenderer(options: RenderOptions): (event: AgentEvent) => void {
  const write = (line: string) => options.out.write(`${line}\n`);
  const l = primaryLabels(options.labels ?? ENGLISH_LABELS);
  return (event) => {
    if (options.json) {
      if (event.type === 'run-end') write(JSON.stringify(toJson(event.result), null, 2));
      return;
    }
    switch (event.type) {
      case 'model-end':
        for (const line of turnLines(event.turn, event.text, l)) write(line);
        break;
      case 'step-end': {
        // The observation as the model sees it: tool output, a rejection, a format error, a repeat note.
        const observation = event.step.observation;
        if (observation)
          write(
            `${pc.cyan(`${l.observation}:`)} ${observation.ok ? observation.text : pc.red(observation.text)}`,
          );
        break;
      }
      case 'run-end':
        for (const line of footerLines(event.result)) write(line);
        break;
      case 'approval-end':
        if (event.decision.type === 'reject')
          write(pc.red(`(rejected: ${event.decision.reason ?? 'by the user'})`));
        if (event.decision.type === 'edit')
          write(pc.yellow(`(approved with edited input: ${event.decision.input})`));
        break;
      case 'run-start':
      case 'tool-end':
      case 'approval-start':
      case 'invented-observation':
      case 'model-start':
      case 'model-delta':
      case 'tool-start':
        break;
      default:
        event satisfies never;
    }
  };
}

function turnLines(turn: Turn, text: string, l: ReturnType<typeof primaryLabels>): string[] {
  const lines: string[] = [];
  if (turn.thought) lines.push(pc.dim(`${l.thought}: ${turn.thought}`));
  switch (turn.type) {
    case 'action':
      lines.push(pc.bold(`${l.action}: ${turn.tool}[${turn.input}]`));
      break;
    case 'answer':
      lines.push(pc.bold(pc.green(`${l.answer}: ${turn.text}`)));
      break;
    case 'none':
      lines.push(pc.red(`(unusable model turn) ${JSON.stringify(text.slice(0, 500))}`));
      break;
    default:
      turn satisfies never;
  }
  if (turn.inventedObservation) lines.push(pc.yellow('(dropped an Observation the model wrote itself)'));
  return lines;
}

function footerLines(result: RunResult): string[] {
  const tokens = [result.usage.inputTokens, result.usage.outputTokens].every((n) => n === undefined)
    ? 'tokens unknown'
    : `${result.usage.inputTokens ?? '?'} in / ${result.usage.outputTokens ?? '?'} out tokens`;
  const summary = pc.dim(
    `— ${result.status} · ${result.steps.length} model turns · ${tokens} · ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  if (result.status === 'answered') return [summary];
  const why: Record<Exclude<RunResult['status'], 'answered'>, string> = {
    max_steps: 'No answer: the step limit was reached (raise it with --max-steps).',
    format_errors: 'No answer: the model kept writing turns that do not follow the Thought/Action format.',
    repeated_action: 'No answer: the model kept repeating the same action with the same result.',
    budget: `No answer: the run hit its budget (${result.error ?? 'tokens, cost or time'}).`,
    aborted: 'No answer: the run was aborted.',
    error: `No answer: ${result.error ?? 'the run failed.'}`,
  };
  return [pc.red(why[result.status]), summary];
}

/** The `--json` shape: the result without the bulky raw texts duplicated. */
function toJson(result: RunResult) {
  return {
    status: result.status,
    answer: result.answer ?? null,
    question: result.question,
    model: result.modelId,
    usage: result.usage,
    durationMs: result.durationMs,
    error: result.error ?? null,
    steps: result.steps.map((s) => ({
      index: s.index,
      turn: s.turn,
      observation: s.observation?.text ?? null,
    })),
  };
}
