/**
 * Terminal rendering of agent events: the trace as it happens, then the answer (or why there is none).
 *
 * @module
 */

import pc from 'picocolors';
import type { AgentEvent, RunResult } from '../agent/types.js';
import { seconds } from '../models/call-progress.js';
import { ENGLISH_LABELS, type LabelSet, primaryLabels } from '../react/labels.js';
import { ownField } from '../util/own.js';
import { inFlagNames } from './flag-names.js';
import { budgetDetail, CLI_MESSAGES, type CliMessages, fill, noAnswerMessage } from './i18n.js';
import { LiveTurn } from './live-turn.js';
import { count, safeText } from './safe-text.js';
import { turnParts } from './turn-parts.js';

/** Where and how to render. */
export interface RenderOptions {
  /** Print only one JSON result at the end. */
  json: boolean;
  out: NodeJS.WritableStream;
  /** Labels to print the trace with. @default ENGLISH_LABELS */
  labels?: LabelSet;
  /** Words of the footer and notes. @default English */
  messages?: CliMessages;
  /** Print `Question: ...` at `run-start` (for `taoloop trace`; `run` does not repeat what was typed). */
  showQuestion?: boolean;
  /** Added to the `--json` result, e.g. `{ trace: file }`. */
  jsonExtra?: Record<string, unknown>;
  /**
   * Print reasoning and thoughts as their tokens arrive (`model-delta` / `reasoning-delta` events); the
   * complete turn reads the same as without it. @default false
   */
  live?: boolean;
  /** Leave out the model's reasoning (`--hide-reasoning`). @default false (shown dimmed) */
  hideReasoning?: boolean;
  /**
   * The run uses native tool calling: with `live`, only the reasoning is printed as it arrives (the text is
   * a thought or the answer, which only the complete turn tells). @default false
   */
  native?: boolean;
  /**
   * Called before each piece of a streamed turn is printed (`run` stops its spinner there, so the spinner
   * turns until the turn shows). @default nothing
   */
  beforeLiveOutput?: () => void;
}

/**
 * Returns a function that renders one event. Everything that came from the model or a tool is printed
 * through {@link safeText}, so it cannot move the cursor, clear the screen or reorder what is shown; a
 * number is printed through {@link count}. An event read from a trace file is data: a text or number field
 * of another type prints as `?`, and so does one of a form the renderer does not know.
 */
export function createRenderer(options: RenderOptions): (event: AgentEvent) => void {
  const write = (line: string) => options.out.write(`${line}\n`);
  const l = primaryLabels(options.labels ?? ENGLISH_LABELS);
  const messages = options.messages ?? CLI_MESSAGES.en;
  const labels = options.labels ?? ENGLISH_LABELS;
  let live: LiveTurn | undefined;
  let tools: readonly string[] = [];
  /** Renderers of nested agents' runs (`agent-event`), by path, each printing indented under its tool call. */
  const nested = new Map<string, (event: AgentEvent) => void>();
  const newLiveTurn = () =>
    new LiveTurn({
      labels,
      printLabels: l,
      tools,
      showReasoning: !options.hideReasoning,
      native: options.native === true,
      write: (t) => {
        options.beforeLiveOutput?.();
        options.out.write(t);
      },
    });
  return (event) => {
    if (options.json) {
      if (event.type === 'run-end')
        write(JSON.stringify({ ...toJson(event.result), ...options.jsonExtra }, null, 2));
      return;
    }
    switch (event.type) {
      case 'model-start':
        if (options.live) live = newLiveTurn();
        break;
      case 'model-delta':
        live?.text(event.shown);
        break;
      case 'reasoning-delta':
        live?.reasoning(event.text);
        break;
      case 'model-end': {
        // A turn printed as it streamed gets what its complete parts add; otherwise, all of it.
        const reasoning = options.hideReasoning ? undefined : event.reasoning;
        const parts = turnParts(event.turn, event.text, reasoning, l, messages);
        if (live) live.finish(parts);
        else for (const part of parts) write(part.style(part.text));
        live = undefined;
        break;
      }
      case 'step-end': {
        // The observation as the model sees it: tool output, a rejection, a format error, a repeat note.
        const observation = event.step.observation;
        if (observation) write(observationLines(observation.text, observation.ok, l.observation));
        break;
      }
      case 'run-end':
        // A turn cut short by a failure or an abort ends its line before the footer.
        live?.abandon();
        live = undefined;
        for (const line of footerLines(event.result, messages)) write(line);
        break;
      case 'run-start':
        tools = Array.isArray(event.tools) ? event.tools : [];
        if (options.showQuestion) write(pc.bold(`${l.question}: ${safeText(event.question)}`));
        break;
      case 'approval-end':
        if (event.decision.type === 'reject')
          write(
            pc.red(
              fill(messages.rejected, { reason: safeText(event.decision.reason ?? messages.byTheUser) }),
            ),
          );
        if (event.decision.type === 'edit')
          write(pc.yellow(fill(messages.editedInput, { input: safeText(event.decision.input) })));
        break;
      case 'model-fallback': {
        // What was printed of the failed model's turn stays; the next model's turn starts on its own line.
        if (live) {
          live.abandon();
          live = newLiveTurn();
        }
        // Model call errors name the model already ("Model call to <id> failed: ...").
        const error = text(event.error);
        const from = text(event.fromModelId);
        const what = error.includes(from) ? error : fill(messages.modelFailed, { model: from, error });
        write(
          pc.yellow(
            fill(messages.tryingNext, {
              what: safeText(inFlagNames(what)),
              model: safeText(event.toModelId),
            }),
          ),
        );
        break;
      }
      case 'agent-event': {
        const key = event.path.join('/');
        let render = nested.get(key);
        if (!render) {
          const prefix = `${'  '.repeat(event.path.length)}${pc.dim(`[${safeText(event.path.join(' › '))}]`)} `;
          render = createRenderer({
            ...options,
            json: false,
            live: false,
            showQuestion: true,
            out: indented(options.out, prefix),
          });
          nested.set(key, render);
        }
        render(event.event);
        if (event.event.type === 'run-end') nested.delete(key);
        break;
      }
      case 'model-retry': {
        const values = {
          retry: count(event.retry),
          max: event.maxRetries === undefined ? '' : count(event.maxRetries),
          error: safeText(event.error),
          waited: finite(event.delayMs) ? seconds(event.delayMs) : '? s',
        };
        write(
          pc.dim(
            fill(event.maxRetries === undefined ? messages.modelRetryOpen : messages.modelRetry, values),
          ),
        );
        break;
      }
      case 'hook-model-end':
        write(pc.dim(`(${safeText(event.purpose ?? 'hook')} written by ${safeText(event.modelId)})`));
        break;
      case 'hook-error':
        write(pc.yellow(`(${safeText(event.hook)} failed: ${safeText(event.error)}; the run goes on)`));
        break;
      case 'tool-end':
      case 'approval-start':
      case 'invented-observation':
      case 'tool-start':
      case 'run-pause': // the footer says it
        break;
      default:
        event satisfies never;
    }
  };
}

/**
 * The observation, indented under the action it answers; continuation lines line up under the first.
 * Failed tool calls and format errors are red.
 */
export function observationLines(text: string, ok: boolean, label: string): string {
  const [first = '', ...rest] = safeText(text).split('\n');
  const body = [first, ...rest.map((line) => `    ${line}`)].join('\n');
  return `  ${pc.cyan(`${label}:`)} ${ok ? body : pc.red(body)}`;
}

/** Formats a cost in USD with enough digits to see small amounts: `$0.0012`, `$1.35`. */
export function formatUsd(costUsd: number): string {
  return `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`;
}

/** The footer: why there is no answer (if so), then status, steps, tokens, cost and time. */
export function footerLines(result: RunResult, messages: CliMessages = CLI_MESSAGES.en): string[] {
  // A result read from a trace is data: every number goes through `count`, every text through `safeText`.
  const usage: Partial<RunResult['usage']> = isRecord(result.usage) ? result.usage : {};
  const { inputTokens, outputTokens, estimated } = usage;
  // `~` marks counts (and the cost from them) that include taoloop's estimate for a call cut client-side.
  const about = estimated === true ? '~' : '';
  // No model call at all (a budget that stopped the run before its first): 0 tokens, not unknown ones.
  const noCall = isRecord(result.usageByModel) && Object.keys(result.usageByModel).length === 0;
  const tokenCount = (n: unknown) => (n === undefined ? (noCall ? '0' : '?') : count(n));
  const tokens =
    inputTokens === undefined && outputTokens === undefined && !noCall
      ? messages.tokensUnknown
      : fill(messages.tokenCounts, {
          in: `${about}${tokenCount(inputTokens)}`,
          out: `${about}${tokenCount(outputTokens)}`,
        });
  const cost =
    result.costUsd === undefined
      ? messages.costUnknown
      : finite(result.costUsd)
        ? `${about}${formatUsd(result.costUsd)}`
        : '$?';
  const seconds = finite(result.durationMs) ? `${(result.durationMs / 1000).toFixed(1)} s` : '? s';
  const status = ownField(messages.status, result.status);
  const stepCount = Array.isArray(result.steps) ? result.steps.length : undefined;
  const one = stepCount !== undefined && messages.singular(stepCount);
  const steps = `${stepCount ?? '?'} ${one ? messages.steps.one : messages.steps.other}`;
  const summary = pc.dim(
    `— ${typeof status === 'string' ? status : safeText(result.status)} · ${steps} · ${tokens} · ${cost} · ${seconds}`,
  );
  if (result.status === 'answered') return [summary];
  const error =
    result.error === undefined
      ? undefined
      : result.status === 'budget' && result.error
        ? budgetDetail(messages, text(result.error))
        : text(result.error);
  const detail = error === undefined ? undefined : safeText(inFlagNames(error));
  // A status this taoloop does not know (a trace from elsewhere) gets the error's words.
  const known = typeof ownField(messages.noAnswer, result.status) === 'string' ? result.status : 'error';
  return [pc.red(noAnswerMessage(messages, known, detail)), summary];
}

/** A text field as it is, or `?` (or the number) when it holds something else (a trace is data). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : count(value);
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** The `--json` shape: the result without the bulky raw texts duplicated. */
function toJson(result: RunResult) {
  return {
    status: result.status,
    answer: result.answer ?? null,
    question: result.question,
    model: result.modelId,
    usage: result.usage,
    ...(result.usageByModel && { usageByModel: result.usageByModel }),
    costUsd: result.costUsd ?? null,
    durationMs: result.durationMs,
    // The library's option names as the flags a CLI user passes, as in the footer.
    error: result.error === undefined ? null : inFlagNames(result.error),
    steps: result.steps.map((s) => ({
      index: s.index,
      turn: s.turn,
      observation: s.observation?.text ?? null,
      ...(s.modelId && { model: s.modelId }),
    })),
  };
}

/** A stream that writes every line it gets to `out` after `prefix`. */
function indented(out: NodeJS.WritableStream, prefix: string): NodeJS.WritableStream {
  const write = (text: string) =>
    out.write(
      text
        .split('\n')
        .map((line, i, all) => (i === all.length - 1 && line === '' ? '' : `${prefix}${line}`))
        .join('\n'),
    );
  return { write } as unknown as NodeJS.WritableStream;
}
