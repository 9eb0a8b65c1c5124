/**
 * A recorded run as a regression test: its model turns replayed against today's tools, prompt and parser,
 * and everything that came out otherwise reported as a readable diff: a tool called differently, an
 * observation that changed, a new format error, another answer, typed output or stop reason, and a
 * recording that is stale because the request the model would now receive is not the one it answered.
 *
 * A trace is data, never permission: from it the check takes the model turns, the question (or the
 * conversation) and what to compare with. Tools with side effects run only as the options say (`approve`,
 * `limits.allowTools`), as in any run; a recorded approval is never replayed.
 *
 * Portable: no Node built-in (the file front ends are `taoloop test` and `checkTraceFile` in `taoloop/node`).
 *
 * @module
 */
import { diffLines } from 'diff';
import { streamAgent } from '../agent/loop.js';
import type { AgentConfig, AgentInput } from '../agent/options.js';
import type { AgentEvent, AgentMessage, RunResult, Step } from '../agent/types.js';
import { recordedModel } from '../trace/recorded-model.js';
import { formatTrace, type Trace } from '../trace/trace-format.js';

/**
 * Volatile tool output to ignore, by tool name (`'*'`: every tool): each match of a pattern is replaced by
 * `<masked>` in both the recorded and today's observation before they are compared. A string is a regular
 * expression's source (flag `g` is always added).
 *
 * @example `{ clock: [/\d{2}:\d{2}:\d{2}/], '*': ['req_[a-z0-9]+'] }`
 */
export type TraceMasks = Readonly<Record<string, readonly (RegExp | string)[]>>;

/**
 * Options for {@link checkTrace}: today's agent (everything of a run but the model, which is the
 * recording, and the input, which is the recorded one), plus masks.
 */
export type TraceCheckOptions<O = unknown> = Omit<AgentConfig<O>, 'model'> & {
  /** Volatile output to ignore per tool. @default none */
  mask?: TraceMasks;
};

/** What differs: the request the model answered (`system-prompt`, `tools`), or what came of its turns. */
export type TraceDifferenceKind =
  | 'system-prompt'
  | 'tools'
  | 'action'
  | 'observation'
  | 'format-error'
  | 'steps'
  | 'answer'
  | 'output'
  | 'status';

/** One difference between the recorded run and today's replay of it. */
export interface TraceDifference {
  kind: TraceDifferenceKind;
  /** The step (from 1) it is in, for per-step differences. */
  step?: number;
  /** One line saying what changed and what it means. */
  summary: string;
  /** The recorded side, as text (masked where masks apply). */
  recorded: string;
  /** Today's side, as text. */
  now: string;
}

/** What {@link checkTrace} found. */
export interface TraceCheck<O = unknown> {
  /** True when nothing diverged: the replay did exactly what was recorded. */
  passed: boolean;
  /**
   * True when the request the model would now receive differs from the one it answered (the system prompt,
   * the tool list, or an earlier observation changed): the recorded turns may not be what the model says now.
   */
  stale: boolean;
  /** Every difference, the request's first, then step by step, then the end of the run. */
  differences: TraceDifference[];
  recorded: { status: string; answer?: string; steps: number };
  /** Today's run of the recorded turns. */
  result: RunResult<O>;
  /** Today's run as a trace's text (same header): written over the fixture, it accepts today's behaviour. */
  updatedTrace: string;
}

/**
 * Replays `trace` against today's agent and compares the outcome with the recording.
 *
 * - The model is the recording (`recordedModel`): turn `i` of today's run gets recorded turn `i`; a run
 *   that wants a turn the recording does not have ends with `error` (reported as a `status` difference).
 * - The input is the recorded question, or the recorded conversation for a follow-up (the run's
 *   `messages` without the answer it added).
 * - `maxSteps` defaults to what the recording needs: its action steps, plus one for the answer unless it
 *   stopped at its step limit (then it stops there again).
 *
 * @throws {AgentConfigError} for options a run refuses (as `runAgent`). Nothing else: a tool that throws
 *   or a replay that runs out of turns is a difference, never an exception.
 */
export async function checkTrace<O = unknown>(
  trace: Trace,
  options: TraceCheckOptions<O> = { tools: [] },
): Promise<TraceCheck<O>> {
  const { mask = {}, ...agent } = options;
  const events: (AgentEvent & { atMs: number })[] = [];
  const started = Date.now();
  const actions = trace.steps.filter((s) => s.turn.type === 'action').length;
  const run = streamAgent<O>({
    ...agent,
    ...traceInput(trace),
    model: recordedModel(trace),
    // A recording that stopped at its limit stops there again; any other gets one call past its actions.
    maxSteps: agent.maxSteps ?? Math.max(1, trace.result?.status === 'max_steps' ? actions : actions + 1),
  } as Parameters<typeof streamAgent<O>>[0]);
  let result: RunResult<O> | undefined;
  for (let next = await run.next(); ; next = await run.next()) {
    if (next.done) {
      result = next.value;
      break;
    }
    events.push({ ...next.value, atMs: Date.now() - started });
  }
  const recordedStart = trace.events.find((e) => e.type === 'run-start');
  const nowStart = events.find((e) => e.type === 'run-start');
  const differences = [
    ...requestDifferences(recordedStart, nowStart),
    ...stepDifferences(trace.steps, result.steps, mask),
    ...endDifferences(trace, result),
  ];
  const stale = differences.some(
    (d) => d.kind === 'system-prompt' || d.kind === 'tools' || d.kind === 'observation',
  );
  const { question, modelId, conversationId, meta, startedAt } = trace.header;
  return {
    passed: differences.length === 0,
    stale,
    differences,
    recorded: {
      status: trace.result?.status ?? (trace.error !== undefined ? 'crashed' : 'unfinished'),
      ...(trace.result?.answer !== undefined && { answer: trace.result.answer }),
      steps: trace.steps.length,
    },
    result,
    updatedTrace: formatTrace(
      { question, modelId, startedAt, ...(conversationId && { conversationId }), ...(meta && { meta }) },
      events,
    ),
  };
}

/** The recorded input: the conversation of a follow-up (without the answer the run added), else the question. */
export function traceInput(trace: Trace): AgentInput {
  const messages: AgentMessage[] = trace.result?.messages ?? [];
  const input = trace.result?.status === 'answered' ? messages.slice(0, -1) : messages;
  if (input.length > 1 && input.at(-1)?.role === 'user') return { messages: input };
  return { question: trace.header.question };
}

type StartEvent = { type: 'run-start'; tools: string[]; systemPrompt: string } | undefined;

function requestDifferences(recorded: unknown, now: unknown): TraceDifference[] {
  const was = recorded as StartEvent;
  const is = now as StartEvent;
  if (was === undefined || is === undefined) return [];
  const differences: TraceDifference[] = [];
  if (was.systemPrompt !== is.systemPrompt) {
    differences.push({
      kind: 'system-prompt',
      summary: 'the system prompt changed, so every recorded turn answered another prompt (stale recording)',
      recorded: was.systemPrompt,
      now: is.systemPrompt,
    });
  }
  const removed = was.tools.filter((t) => !is.tools.includes(t));
  const added = is.tools.filter((t) => !was.tools.includes(t));
  if (removed.length > 0 || added.length > 0) {
    const parts = [
      ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
      ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
    ];
    differences.push({
      kind: 'tools',
      summary: `the tool list changed (${parts.join('; ')}), so the recorded turns chose among other tools (stale recording)`,
      recorded: was.tools.join(', '),
      now: is.tools.join(', '),
    });
  }
  return differences;
}

/** How a step's turn reads, for a diff: `search[Paris]`, `answer: Paris`, `format error (no-action)`. */
export function describeStep(step: Step): string {
  const { turn } = step;
  switch (turn.type) {
    case 'action':
      return `${turn.tool}[${turn.input}]`;
    case 'answer':
      return `answer: ${turn.text}`;
    case 'none':
      return `format error (${turn.kind})`;
    default:
      return turn satisfies never;
  }
}

function stepDifferences(
  recorded: readonly Step[],
  now: readonly Step[],
  masks: TraceMasks,
): TraceDifference[] {
  const differences: TraceDifference[] = [];
  for (let i = 0; i < Math.max(recorded.length, now.length); i += 1) {
    const was = recorded[i];
    const is = now[i];
    if (was === undefined || is === undefined) continue; // counted once, as `steps`, below
    const step = i + 1;
    const before = describeStep(was);
    const after = describeStep(is);
    if (before !== after) {
      const newFormatError = is.turn.type === 'none' && was.turn.type !== 'none';
      differences.push({
        kind: newFormatError ? 'format-error' : 'action',
        step,
        summary: newFormatError
          ? `step ${step}: the same model turn is now a format error: ${is.turn.type === 'none' ? is.turn.problem : ''}`
          : `step ${step}: the same model turn is now read as another action`,
        recorded: before,
        now: after,
      });
    }
    const tool = was.turn.type === 'action' ? was.turn.tool : '';
    const wasText = masked(was.observation?.text, tool, masks);
    const isText = masked(is.observation?.text, tool, masks);
    if (wasText !== isText && before === after) {
      differences.push({
        kind: 'observation',
        step,
        summary: `step ${step}: ${before} now observes otherwise${step < recorded.length ? `, so the recorded turns after step ${step} answered an observation the model would no longer see (stale recording)` : ''}`,
        recorded: wasText ?? '(no observation)',
        now: isText ?? '(no observation)',
      });
    }
  }
  if (recorded.length !== now.length) {
    differences.push({
      kind: 'steps',
      summary: `the recording has ${recorded.length} steps; today's run took ${now.length}`,
      recorded: String(recorded.length),
      now: String(now.length),
    });
  }
  return differences;
}

function endDifferences(trace: Trace, result: RunResult): TraceDifference[] {
  const differences: TraceDifference[] = [];
  const was = trace.result;
  const status = was?.status ?? (trace.error !== undefined ? 'crashed' : 'unfinished');
  if (status !== result.status) {
    differences.push({
      kind: 'status',
      summary: `the run now ends ${result.status}${result.error ? ` (${result.error})` : ''}, not ${status}`,
      recorded: status,
      now: result.status,
    });
  }
  if ((was?.answer ?? null) !== (result.answer ?? null)) {
    differences.push({
      kind: 'answer',
      summary: 'the answer changed',
      recorded: was?.answer ?? '(no answer)',
      now: result.answer ?? '(no answer)',
    });
  }
  const before = JSON.stringify(was?.output ?? null);
  const after = JSON.stringify(result.output ?? null);
  if (before !== after) {
    differences.push({ kind: 'output', summary: 'the typed output changed', recorded: before, now: after });
  }
  return differences;
}

function masked(text: string | undefined, tool: string, masks: TraceMasks): string | undefined {
  if (text === undefined) return undefined;
  const patterns = [
    ...(Object.hasOwn(masks, tool) ? (masks[tool] ?? []) : []),
    ...(Object.hasOwn(masks, '*') ? (masks['*'] ?? []) : []),
  ];
  return patterns.reduce<string>((out, pattern) => out.replace(globalRegex(pattern), '<masked>'), text);
}

function globalRegex(pattern: RegExp | string): RegExp {
  if (typeof pattern === 'string') return new RegExp(pattern, 'g');
  return pattern.flags.includes('g') ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

/**
 * A {@link TraceCheck} as text for a terminal or a test failure: one line saying whether it passed, then
 * each difference with its recorded (`-`) and today's (`+`) side; a system prompt as a line diff.
 *
 * @param name What to call the recording (its file).
 */
export function formatTraceCheck(check: TraceCheck, name: string): string {
  const stepsOf = (n: number) => `${n} step${n === 1 ? '' : 's'}`;
  const steps = stepsOf(check.result.steps.length);
  if (check.passed) return `ok  ${name}  (${check.result.status} in ${steps}, as recorded)`;
  const lines = [
    `FAIL ${name}  (recorded: ${check.recorded.status} in ${stepsOf(check.recorded.steps)}; now: ${check.result.status} in ${steps})${check.stale ? ' · stale recording' : ''}`,
  ];
  for (const d of check.differences) {
    lines.push(`  ${d.summary}`);
    if (d.kind === 'system-prompt') {
      const diff = promptDiff(d.recorded, d.now);
      lines.push(...diff.slice(0, 3 * MAX_SIDE_LINES));
      if (diff.length > 3 * MAX_SIDE_LINES)
        lines.push(`    … ${diff.length - 3 * MAX_SIDE_LINES} more lines`);
    } else if (d.kind !== 'steps' && d.kind !== 'status') {
      lines.push(...side('-', d.recorded), ...side('+', d.now));
    }
  }
  if (check.stale) {
    lines.push(
      '  The recorded turns answered another request: record the run again with a live model, or accept today’s behaviour (taoloop test --update; checkTraceFile’s `update`).',
    );
  }
  return lines.join('\n');
}

/** Lines of one side of a difference shown at most; a longer text ends with how many lines were left out. */
const MAX_SIDE_LINES = 20;

function side(sign: '-' | '+', text: string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, MAX_SIDE_LINES).map((line) => `    ${sign} ${line}`);
  if (lines.length > MAX_SIDE_LINES) shown.push(`    ${sign} … ${lines.length - MAX_SIDE_LINES} more lines`);
  return shown;
}

/** The changed lines of two prompts, with one unchanged line of context either side. */
function promptDiff(before: string, after: string): string[] {
  const parts = diffLines(`${before}\n`, `${after}\n`);
  const out: string[] = [];
  parts.forEach((part, i) => {
    const lines = part.value.replace(/\n$/, '').split('\n');
    if (part.added) out.push(...side('+', lines.join('\n')));
    else if (part.removed) out.push(...side('-', lines.join('\n')));
    else {
      const after = i > 0 ? lines.slice(0, 1) : [];
      const before = i < parts.length - 1 ? lines.slice(-1) : [];
      const context = lines.length > 2 ? [...after, '…', ...before] : lines;
      out.push(...context.map((l) => (l === '…' ? '    …' : `      ${l}`)));
    }
  });
  return out;
}
