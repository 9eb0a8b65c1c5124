/**
 * The journal of a run that may pause: it records every side effect of the run (model turns, approval
 * decisions, tool observations) in the order they start, and a resumed run replays those records instead
 * of making the effects again. It plugs into the loop's journal seam (`options.journal`); unlike a durable
 * engine's journal it also records a streamed model call, once the stream ends, so pausing costs no
 * streaming.
 *
 * Replay is positional, like Restate's journal: the n-th effect of the resumed run gets the n-th record,
 * and its name must match, else the run does not reproduce (other options, other tools) and is stopped.
 *
 * @module
 */
import { RunStateError } from './pause-errors.js';
import type { AgentEvent, Journal, RunJournalEntry } from './types.js';

/** Records a run's side effects and replays a paused run's. */
export class RunRecorder {
  /** Records by position; a hole is an effect in flight or one that failed. */
  readonly #entries: (RunJournalEntry | undefined)[] = [];
  readonly #replay: readonly RunJournalEntry[];
  #position = 0;
  /** True once an effect ran in this process (the replay is over). */
  live = false;
  /** Set when the run stopped matching the replayed journal; every later effect is refused. */
  broken: RunStateError | undefined;

  readonly #beforeLive: ((name: string) => void) | undefined;

  /**
   * @param replay the records to give back, in order.
   * @param beforeLive called before each effect that is not replayed; what it throws stops the run.
   */
  constructor(replay: readonly RunJournalEntry[] = [], beforeLive?: (name: string) => void) {
    this.#replay = replay;
    this.#beforeLive = beforeLive;
  }

  /** The seam for `options.journal`. */
  readonly journal: Journal = async <T>(name: string, effect: () => Promise<T>): Promise<T> => {
    const slot = this.#take(name);
    if ('value' in slot) return slot.value as T;
    this.live = true;
    const value = await effect();
    this.#entries[slot.position] = { name, value };
    return value;
  };

  /** Like {@link journal} for an effect that yields events while it runs (a streamed model call). */
  async *streamed<T>(
    name: string,
    effect: () => AsyncGenerator<AgentEvent, T>,
  ): AsyncGenerator<AgentEvent, T> {
    const slot = this.#take(name);
    if ('value' in slot) return slot.value as T;
    this.live = true;
    const value = yield* effect();
    this.#entries[slot.position] = { name, value };
    return value;
  }

  /** True when every replayed record was used. */
  get replayed(): boolean {
    return this.#position >= this.#replay.length;
  }

  /** The completed effects, in order, up to the first one still in flight or failed (as JSON data). */
  completed(): RunJournalEntry[] {
    const done: RunJournalEntry[] = [];
    for (const entry of this.#entries) {
      if (entry === undefined) break;
      done.push(entry);
    }
    return JSON.parse(JSON.stringify(done)) as RunJournalEntry[];
  }

  /** The next position: its record when the replay has one, else a slot for a live effect. */
  #take(name: string): { position: number } | { position: number; value: unknown } {
    if (this.broken) throw this.broken;
    const position = this.#position++;
    const record = this.#replay[position];
    if (record === undefined) {
      try {
        this.#beforeLive?.(name);
      } catch (error) {
        this.broken = error instanceof RunStateError ? error : new RunStateError('mismatch', String(error));
        throw this.broken;
      }
      return { position };
    }
    if (record.name !== name) {
      this.broken = new RunStateError(
        'mismatch',
        `The resumed run does not follow the paused run: its effect number ${position + 1} is ${name}, where the state recorded ${record.name}. Resume with the same model, tools and options as the run that paused.`,
      );
      throw this.broken;
    }
    this.#entries[position] = record;
    return { position, value: record.value };
  }
}

/** What the loop needs of a recorder: a streamed effect recorded once it ends. */
export type StreamRecorder = Pick<RunRecorder, 'streamed'>;

/** The recorder behind a journal made by {@link RunRecorder} (or {@link scopedJournal} over one), if any. */
export function recorderOf(journal: Journal | undefined): StreamRecorder | undefined {
  return journal === undefined ? undefined : recorders.get(journal);
}

const recorders = new WeakMap<Journal, StreamRecorder>();

/**
 * A journal that passes each effect to `parent` named `<prefix><name>` (a nested agent's effects in its
 * parent's journal). When `parent` is a pause/resume recorder, the scoped journal is one too, so a nested
 * run keeps streaming its model calls and its tools' full output, as the parent run does.
 */
export function scopedJournal(parent: Journal, prefix: string): Journal {
  const journal: Journal = (name, effect) => parent(`${prefix}${name}`, effect);
  const recorder = recorderOf(parent);
  if (recorder)
    recorders.set(journal, { streamed: (name, effect) => recorder.streamed(`${prefix}${name}`, effect) });
  return journal;
}

/** A new recorder, registered so that {@link recorderOf} finds it from its journal. */
export function newRecorder(
  replay?: readonly RunJournalEntry[],
  beforeLive?: (name: string) => void,
): RunRecorder {
  const recorder = new RunRecorder(replay, beforeLive);
  recorders.set(recorder.journal, recorder);
  return recorder;
}

/**
 * A model call through the recorder of a run that may pause (streamed live, recorded once it ends, replayed
 * on resume), or simply made when the run has none.
 */
export function recordedTurn<T>(
  journal: Journal | undefined,
  step: number,
  call: () => AsyncGenerator<AgentEvent, T>,
): AsyncGenerator<AgentEvent, T> {
  const recorder = recorderOf(journal);
  return recorder ? recorder.streamed(`step-${step}-model`, call) : call();
}
