/**
 * One model turn of the UI message stream as it streams (`model-delta` and `reasoning-delta` events): the
 * model's reasoning and the thought as reasoning parts, the answer as a text part, the action as a tool part
 * whose input streams (`tool-input-start`, `tool-input-delta`), each growing as the loop says more of the
 * reply may be shown (`model-delta`'s `shown`, never the start of an observation the model writes itself).
 * The reply is read by `readPartialTurn`, as the CLI reads it. What the complete turn then says
 * (`model-end`, and `step-end` for an accepted answer) settles each part: the rest of its text, then its end.
 *
 * A part the complete turn does not keep (a failed model's text before a fallback, an answer that was
 * refused or turned out unusable, a thought the complete turn reads differently) cannot be taken back from
 * the client: it is ended with `providerMetadata: { taoloop: { discarded: true } }` (see
 * `DISCARDED`), and the complete turn's part follows it. `uiMessagesToAgentMessages` leaves such text
 * out of the conversation; a front end may hide such parts. A streamed tool part whose call does not run
 * ends with `tool-input-error`.
 *
 * @module
 */
import type { ProviderMetadata, UIMessageChunk } from 'ai';
import { stepCallId, uiPartId } from '../agent/ids.js';
import type { AgentEvent, Step } from '../agent/types.js';
import type { LabelSet } from '../react/labels.js';
import { readPartialTurn } from '../react/partial-turn.js';
import { readThinking } from '../react/think.js';
import type { Turn } from '../react/turn.js';

/** The chunks a streamed turn sends: any chunk but a data part (each a `TaoloopUIMessageChunk`). */
export type TurnChunk = Exclude<UIMessageChunk, { type: `data-${string}` }>;

/**
 * The `providerMetadata` on the end chunk (`text-end`, `reasoning-end`) of a part streamed before its turn
 * was complete that the complete turn does not keep. The client keeps the part (a stream cannot take a part
 * back) with this metadata.
 */
export const DISCARDED = { taoloop: { discarded: true } } as const satisfies ProviderMetadata;

/** How a streamed turn is read. */
export interface StreamedTurnOptions {
  labels: LabelSet;
  /** The tool names the turn is read with. */
  tools: readonly string[];
  /** Native tool calling: only the model's reasoning streams (the text is a thought or the answer). */
  native: boolean;
  /** Stream the answer's text (off when an answer may be refused: `output`, `hooks.checkAnswer`). */
  streamAnswer: boolean;
  /** Tools whose input is JSON (streamed as such); other inputs stream as text. */
  schemaTools: ReadonlySet<string>;
}

/** A text or reasoning part streamed so far. */
interface SentText {
  id: string;
  kind: 'text' | 'reasoning';
  sent: string;
  open: boolean;
}

/** A tool part streamed so far: its tool, the input sent, and whether the run opened the call itself. */
interface SentTool {
  id: string;
  tool: string;
  input: string;
  /** The loop's own chunk for the call (`tool-input-available`) was sent: the part is the call's now. */
  taken: boolean;
}

/** The id of the reasoning part for the model's own reasoning (the thought's is `reasoning-<n>`). */
export function modelReasoningId(step: number): string {
  return `${uiPartId('reasoning', step)}-model`;
}

/** The chunks of one streamed model turn, from its first delta to its step's end. */
export class StreamedTurn {
  readonly step: number;
  readonly #options: StreamedTurnOptions;
  #shown = '';
  #providerReasoning = '';
  /** Characters that arrived since the turn was last read. */
  #unread = 0;
  #reasoning: SentText | undefined;
  #thought: SentText | undefined;
  #answer: SentText | undefined;
  #tool: SentTool | undefined;

  constructor(step: number, options: StreamedTurnOptions) {
    this.step = step;
    this.#options = options;
  }

  /** A `model-delta` (its `shown`) or `reasoning-delta` event. */
  delta(event: Extract<AgentEvent, { type: 'model-delta' | 'reasoning-delta' }>): TurnChunk[] {
    const added = event.type === 'reasoning-delta' ? event.text : event.shown;
    if (event.type === 'reasoning-delta') this.#providerReasoning += added;
    else this.#shown += added;
    // Each read is of the whole text so far: a long turn is read again once enough arrived, not per delta.
    this.#unread += added.length;
    const size = this.#shown.length + this.#providerReasoning.length;
    if (added === '' || (size > READ_EVERY_DELTA && this.#unread * READ_RATIO < size)) return [];
    this.#unread = 0;
    const { labels, tools, native } = this.#options;
    const read = native
      ? { reasoning: nativeReasoning(this.#providerReasoning, this.#shown), inputSettled: true }
      : readPartialTurn(this.#shown, this.#providerReasoning, { labels, tools });
    const chunks: TurnChunk[] = [];
    const turn: Turn | undefined = 'turn' in read ? read.turn : undefined;
    // A later part closes the ones before it, as the AI SDK's own streams do.
    if (read.reasoning !== '')
      this.#reasoning = grow(
        this.#reasoning,
        'reasoning',
        modelReasoningId(this.step),
        read.reasoning,
        chunks,
      );
    if (turn?.thought) {
      close(this.#reasoning, chunks);
      this.#thought = grow(
        this.#thought,
        'reasoning',
        uiPartId('reasoning', this.step),
        turn.thought,
        chunks,
      );
    }
    if (turn?.type === 'action') {
      close(this.#reasoning, chunks);
      close(this.#thought, chunks);
      this.#growTool(turn.tool, read.inputSettled ? turn.input : '', chunks);
    } else if (turn?.type === 'answer' && turn.text !== '' && this.#options.streamAnswer) {
      close(this.#reasoning, chunks);
      close(this.#thought, chunks);
      this.#answer = grow(this.#answer, 'text', uiPartId('text', this.step), turn.text, chunks);
    }
    return chunks;
  }

  /**
   * The complete turn (`model-end`): the reasoning parts settled to its reasoning and thought (sent whole
   * when nothing of them streamed, as for a turn that did not stream); a streamed answer or tool part the
   * turn does not keep is ended. An answer it keeps waits for {@link stepEnd}; an action's tool part for
   * {@link takeCall}.
   */
  end(event: Extract<AgentEvent, { type: 'model-end' }>): TurnChunk[] {
    const { turn } = event;
    const chunks: TurnChunk[] = [];
    // The model's own reasoning is shown only as it streamed: a turn that did not stream shows none of it.
    if (this.#reasoning) settle(this.#reasoning, event.reasoning, chunks);
    settle(
      this.#thought ?? { id: uiPartId('reasoning', this.step), kind: 'reasoning', sent: '', open: false },
      turn.thought,
      chunks,
    );
    if (this.#answer && (turn.type !== 'answer' || !turn.text.startsWith(this.#answer.sent))) {
      discard(this.#answer, chunks);
      this.#answer = undefined;
    }
    if (turn.type !== 'action') this.#dropTool(turn.type === 'none' ? turn.problem : NOT_RUN, chunks);
    return chunks;
  }

  /**
   * The loop sends the call's input (`tool-start`, `approval-start`): from then on the tool part is the
   * call's, as for a turn that did not stream.
   */
  takeCall(id: string): void {
    if (this.#tool?.id === id) this.#tool.taken = true;
  }

  /**
   * The step's end: a tool part whose call never ran (the forced last turn) ends with an error; the streamed
   * answer is settled: the rest of it and its end when it was accepted (`answered` is then true: its text
   * part is complete), else ended as discarded.
   */
  stepEnd(step: Step): { chunks: TurnChunk[]; answered: boolean } {
    const chunks: TurnChunk[] = [];
    this.#dropTool(NOT_RUN, chunks);
    const { turn, observation } = step;
    const answer = this.#answer;
    this.#answer = undefined;
    if (turn.type !== 'answer' || answer === undefined) return { chunks, answered: false };
    if (observation) {
      discard(answer, chunks);
      return { chunks, answered: false };
    }
    settle(answer, turn.text, chunks);
    return { chunks, answered: true };
  }

  /** The turn will not complete (a fallback takes the call, or the run ended): every open part is ended. */
  abandon(why: string): TurnChunk[] {
    const chunks: TurnChunk[] = [];
    for (const part of [this.#reasoning, this.#thought, this.#answer]) if (part?.open) discard(part, chunks);
    this.#dropTool(why, chunks);
    return chunks;
  }

  #growTool(tool: string, input: string, chunks: TurnChunk[]): void {
    let sent = this.#tool;
    if (sent === undefined) {
      const id = stepCallId(this.step);
      const json = this.#options.schemaTools.has(tool);
      chunks.push({
        type: 'tool-input-start',
        toolCallId: id,
        toolName: tool,
        ...(!json && { inputEncoding: 'text' }),
      });
      sent = this.#tool = { id, tool, input: '', taken: false };
    }
    // Only what extends the input sent: the complete turn's input replaces it (`tool-input-available`).
    if (sent.taken || sent.tool !== tool || !input.startsWith(sent.input) || input === sent.input) return;
    chunks.push({
      type: 'tool-input-delta',
      toolCallId: sent.id,
      inputTextDelta: input.slice(sent.input.length),
    });
    sent.input = input;
  }

  #dropTool(why: string, chunks: TurnChunk[]): void {
    const sent = this.#tool;
    if (sent === undefined || sent.taken) return;
    chunks.push({
      type: 'tool-input-error',
      toolCallId: sent.id,
      toolName: sent.tool,
      input: sent.input,
      errorText: why,
    });
    this.#tool = undefined;
  }
}

/**
 * A turn is read again on each delta up to this many characters (reply and reasoning); past it, once what
 * arrived since the last read is a 16th ({@link READ_RATIO}) of it, so that reading a long reply costs
 * linear time, not quadratic (a 20,000-character answer in 4-character deltas: about 3.5 s of CPU read on
 * every delta). What waits is sent with the next read, or when the turn completes.
 */
const READ_EVERY_DELTA = 1_000;
const READ_RATIO = 16;

/**
 * Native mode's reasoning so far, as `Step.reasoning` joins it: the provider's, then the text's `<think>`
 * blocks (the text itself is a thought or the answer, which only the complete turn tells).
 */
function nativeReasoning(provider: string, text: string): string {
  return [provider.trim(), ...readThinking(withoutTagStart(text)).blocks].filter(Boolean).join('\n\n');
}

/** `text` without the start of a `<think>` or `</think>` tag it may end with (the next delta tells). */
function withoutTagStart(text: string): string {
  for (let n = Math.min(7, text.length); n > 0; n--) {
    const tail = text.slice(-n).toLowerCase();
    if ('</think>'.startsWith(tail) || (n < 7 && '<think>'.startsWith(tail))) return text.slice(0, -n);
  }
  return text;
}

/** Why a streamed tool part's call did not run, when nothing says more. */
const NOT_RUN = 'The action was not run.';

/** Starts `part` or adds what `text` adds to it (when it extends what was sent; else waits). */
function grow(
  part: SentText | undefined,
  kind: SentText['kind'],
  id: string,
  text: string,
  chunks: TurnChunk[],
): SentText {
  if (part === undefined) {
    chunks.push(kind === 'text' ? { type: 'text-start', id } : { type: 'reasoning-start', id });
    part = { id, kind, sent: '', open: true };
  }
  if (!part.open || !text.startsWith(part.sent) || text === part.sent) return part;
  push(part, text.slice(part.sent.length), chunks);
  part.sent = text;
  return part;
}

function push(part: SentText, delta: string, chunks: TurnChunk[]): void {
  const { id } = part;
  chunks.push(
    part.kind === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta },
  );
}

/** Ends `part` when it is open. */
function close(part: SentText | undefined, chunks: TurnChunk[], discarded = false): void {
  if (!part?.open) return;
  const { id } = part;
  const metadata = discarded ? { providerMetadata: DISCARDED } : {};
  chunks.push(
    part.kind === 'text' ? { type: 'text-end', id, ...metadata } : { type: 'reasoning-end', id, ...metadata },
  );
  part.open = false;
}

function discard(part: SentText, chunks: TurnChunk[]): void {
  close(part, chunks, true);
}

/**
 * Brings `part` to `final` (undefined: the complete turn has no such part): the rest of its text and its
 * end when `final` extends what was sent; else it is ended as discarded, and `final` follows whole, as a
 * part of its own (the same id). A part ended earlier that `final` extends gets the rest as a part of its
 * own (reasoning that went on after the thought began).
 */
function settle(part: SentText, final: string | undefined, chunks: TurnChunk[]): void {
  const rest = final?.startsWith(part.sent) ? final.slice(part.sent.length) : undefined;
  if (part.open && rest !== undefined) {
    if (rest !== '') push(part, rest, chunks);
    part.sent = final ?? '';
    close(part, chunks);
    return;
  }
  if (part.open) discard(part, chunks);
  else if (rest === '') return;
  const text = rest ?? final;
  if (text === undefined || text === '') return;
  const fresh: SentText = { id: part.id, kind: part.kind, sent: '', open: true };
  chunks.push(
    part.kind === 'text' ? { type: 'text-start', id: part.id } : { type: 'reasoning-start', id: part.id },
  );
  push(fresh, text, chunks);
  close(fresh, chunks);
}
