/**
 * The one seam for a step's side effects: the model call, an approval, a tool call. The loop and the act
 * step call `run.effects.*` and nothing else; the run picks one of three makers when it starts
 * (`run.ts`) and keeps it:
 *
 * - {@link directEffects}: an ordinary run. Each effect is simply made; nothing is recorded.
 * - {@link RecordedEffects}: a run that may pause (pause/resume). Every effect is recorded in order, and a
 *   resumed run replays the records instead of making the effects again; a model call still streams.
 * - {@link journaledEffects}: a durable engine's journal (Restate's `ctx.run`). Each effect is recorded
 *   whole by the engine, so model calls are not streamed.
 *
 * Names are positional and stable: `step-<n>-model`, `step-<n>-hook-<k>`, `step-<n>-approval`,
 * `step-<n>-tool`, and a nested agent's effects under `step-<n>-call-<k>-<tool>/`.
 *
 * @module
 */
import type { ToolOutcome } from '../tools/router.js';
import type { ToolSnapshot } from '../tools/types.js';
import { errorMessage } from '../util/own.js';
import { RunStateError } from './errors.js';
import type { AgentEvent, ApprovalDecision, ApprovalRequest, Journal, RunJournalEntry } from './types.js';

/** Decides an approval request (asks `approve`, or pauses the run). */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** A tool snapshot longer than this (as JSON, in characters) is not recorded: the journal stays small. */
export const MAX_SNAPSHOT_CHARS = 4_000_000;

/** The side effects of a run. */
export interface RunEffects {
  /** Whether model calls may stream (a durable journal records whole results only). */
  readonly streams: boolean;
  /** Whether a tool's full output stays on the step (never in a durable engine's record). */
  readonly keepsFullOutput: boolean;
  /** True while a resumed run gives back recorded effects, before it makes one of its own. */
  readonly replaying: boolean;
  /**
   * A model call (a step's, or a hook's through `generate`), yielding what it streams. A replayed call
   * yields nothing and returns the recorded result.
   */
  model<T>(name: string, call: () => AsyncGenerator<AgentEvent, T>): AsyncGenerator<AgentEvent, T>;
  /**
   * Whether a native step's approvals are all asked before any of its calls runs, so that a run pauses once
   * per step with every request of the step (`durable.pauseForApproval`, and the resume of such a run).
   */
  readonly asksTogether: boolean;
  /**
   * An approval: decided by the run's approver (which may pause the run, throwing `RunPaused`); a replayed
   * approval returns the recorded decision, which the caller reads again failing closed.
   */
  approval(name: string, request: ApprovalRequest): Promise<ApprovalDecision>;
  /**
   * A tool call: `execute` runs it; a replayed call does not run, and the tool's `snapshot` is restored.
   * The outcome's `fullOutput` is kept only when {@link keepsFullOutput}.
   */
  tool(name: string, execute: () => Promise<ToolOutcome>, snapshot?: ToolSnapshot): Promise<ToolOutcome>;
  /** The same effects for a nested agent: each name under `prefix`. */
  scoped(prefix: string): RunEffects;
}

/** An ordinary run's effects: each one is made, nothing is recorded. */
export function directEffects(approver: Approver): RunEffects {
  const effects: RunEffects = {
    streams: true,
    keepsFullOutput: true,
    asksTogether: false,
    replaying: false,
    model: (_name, call) => call(),
    approval: (_name, request) => approver(request),
    tool: (_name, execute) => execute(),
    scoped: () => effects,
  };
  return effects;
}

/** What a journal records for one tool call. */
interface ToolRecord {
  /** The outcome as the model saw it: the observation, already truncated; no `fullOutput`. */
  outcome: ToolOutcome;
  /** The tool's snapshot after the call, when it has one and it is small enough. */
  snapshot?: unknown;
}

/**
 * Effects through a durable engine's {@link Journal}: every effect is recorded whole under its name, read
 * tools included (as the observation the model saw, never the full output, plus the tool's snapshot), so a
 * resumed run continues from exactly the observations the model saw. Model calls are not streamed.
 */
export function journaledEffects(journal: Journal, approver: Approver, prefix = ''): RunEffects {
  return {
    streams: false,
    keepsFullOutput: false,
    asksTogether: false,
    replaying: false,
    model: async function* (name, call) {
      return await journal(`${prefix}${name}`, () => drain(call()));
    },
    approval: (name, request) => journal(`${prefix}${name}`, () => approver(request)),
    tool: (name, execute, snapshot) =>
      recordedTool((effect) => journal(`${prefix}${name}`, effect), execute, snapshot, false),
    scoped: (more) => journaledEffects(journal, approver, `${prefix}${more}`),
  };
}

/**
 * Effects that record every effect in the order it starts, and replay `replay` (a paused run's journal)
 * instead of making those effects again. Replay is positional, like Restate's journal: the n-th effect of
 * the resumed run gets the n-th record, whose name must match, else the run does not reproduce (other
 * options, other tools) and is stopped with {@link RunStateError}.
 */
export class RecordedEffects implements RunEffects {
  readonly streams = true;
  readonly keepsFullOutput = true;
  readonly asksTogether: boolean;
  readonly #approver: Approver;
  /** Records by position; a hole is an effect in flight or one that failed. */
  readonly #entries: (RunJournalEntry | undefined)[] = [];
  readonly #replay: readonly RunJournalEntry[];
  readonly #beforeLive: ((name: string) => void) | undefined;
  readonly #replayedApproval: ((request: ApprovalRequest) => void) | undefined;
  readonly #checkpoint: ((journal: RunJournalEntry[]) => Promise<boolean>) | undefined;
  /** How many completed effects the last checkpoint holds. */
  #checkpointed: number;
  /** The checkpoint being taken: one at a time, in order. */
  #checkpointing: Promise<void> = Promise.resolve();
  /** Why the last checkpoint failed: the run stops at its next effect. */
  #checkpointFailure: RunStateError | undefined;
  #position = 0;
  /** True once an effect ran in this process (the replay is over). */
  live = false;
  /** Set when the run stopped matching the replayed journal; every later effect is refused. */
  broken: RunStateError | undefined;

  /**
   * @param approver decides the approvals that are not replayed (and may pause the run).
   * @param replay the records to give back, in order.
   * @param beforeLive called before each effect that is not replayed; what it throws stops the run.
   * @param replayedApproval called with each approval request given back from `replay`.
   * @param checkpoint called with the completed effects before the first live effect and after each
   *   effect completes, when there are more than the last call saved; answers whether it saved them. What
   *   it throws stops the run before its next effect.
   * @param checkpointed how many of `replay`'s records a checkpoint already holds (-1: none, so the first
   *   live effect checkpoints the replayed ones first).
   */
  constructor(options: {
    approver: Approver;
    asksTogether: boolean;
    replay?: readonly RunJournalEntry[] | undefined;
    beforeLive?: ((name: string) => void) | undefined;
    replayedApproval?: ((request: ApprovalRequest) => void) | undefined;
    checkpoint?: ((journal: RunJournalEntry[]) => Promise<boolean>) | undefined;
    checkpointed?: number | undefined;
  }) {
    this.#approver = options.approver;
    this.asksTogether = options.asksTogether;
    this.#replay = options.replay ?? [];
    this.#beforeLive = options.beforeLive;
    this.#replayedApproval = options.replayedApproval;
    this.#checkpoint = options.checkpoint;
    this.#checkpointed = options.checkpointed ?? 0;
  }

  async *model<T>(name: string, call: () => AsyncGenerator<AgentEvent, T>): AsyncGenerator<AgentEvent, T> {
    const slot = this.#take(name);
    if ('value' in slot) return slot.value as T;
    await this.#saveBeforeLive();
    const value = yield* call();
    this.#entries[slot.position] = { name, value };
    await this.#saveProgress();
    return value;
  }

  approval(name: string, request: ApprovalRequest): Promise<ApprovalDecision> {
    return this.#record(
      name,
      () => this.#approver(request),
      () => this.#replayedApproval?.(request),
    );
  }

  tool(name: string, execute: () => Promise<ToolOutcome>, snapshot?: ToolSnapshot): Promise<ToolOutcome> {
    return recordedTool((effect) => this.#record(name, effect), execute, snapshot, true);
  }

  get replaying(): boolean {
    return !this.live && this.#replay.length > 0;
  }

  scoped(prefix: string): RunEffects {
    return scopedEffects(this, prefix);
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

  async #record<T>(name: string, effect: () => Promise<T>, replayed?: () => void): Promise<T> {
    const slot = this.#take(name);
    if ('value' in slot) {
      replayed?.();
      return slot.value as T;
    }
    await this.#saveBeforeLive();
    const value = await effect();
    this.#entries[slot.position] = { name, value };
    await this.#saveProgress();
    return value;
  }

  /** Before a live effect: the checkpoint it follows (a resume's first saves its decisions), or the stop. */
  async #saveBeforeLive(): Promise<void> {
    await this.#saveProgress();
    this.broken ??= this.#checkpointFailure;
    if (this.broken) throw this.broken;
  }

  /**
   * Hands the completed effects to `checkpoint` when there are more than it last saved, one call at a
   * time. A failure is kept and stops the run at its next effect (`#take`), not this one: the effect that
   * just completed is the run's own, and it goes on to be seen.
   */
  #saveProgress(): Promise<void> {
    const checkpoint = this.#checkpoint;
    if (checkpoint === undefined) return Promise.resolve();
    this.#checkpointing = this.#checkpointing.then(async () => {
      if (this.broken || this.#checkpointFailure) return;
      const journal = this.completed();
      if (journal.length <= this.#checkpointed) return;
      try {
        if (await checkpoint(journal)) this.#checkpointed = journal.length;
      } catch (error) {
        this.#checkpointFailure = new RunStateError(
          'checkpoint',
          `The run's checkpoint could not be stored (${errorMessage(error)}), so the run stopped before its next effect: continue it from the last checkpoint stored.`,
        );
      }
    });
    return this.#checkpointing;
  }

  /** The next position: its record when the replay has one, else a slot for a live effect. */
  #take(name: string): { position: number } | { position: number; value: unknown } {
    this.broken ??= this.#checkpointFailure;
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
      this.live = true;
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

/** `effects` with each name under `prefix` (a nested agent's effects in its parent's record). */
function scopedEffects(effects: RunEffects, prefix: string): RunEffects {
  return {
    streams: effects.streams,
    keepsFullOutput: effects.keepsFullOutput,
    asksTogether: effects.asksTogether,
    get replaying() {
      return effects.replaying;
    },
    model: (name, call) => effects.model(`${prefix}${name}`, call),
    approval: (name, request) => effects.approval(`${prefix}${name}`, request),
    tool: (name, execute, snapshot) => effects.tool(`${prefix}${name}`, execute, snapshot),
    scoped: (more) => scopedEffects(effects, `${prefix}${more}`),
  };
}

/**
 * A tool call through `record` (a journal's, or a recorder's): what is recorded is the outcome the model
 * saw (never the full output) and the tool's snapshot. A call given back from the record did not run here:
 * its snapshot is restored, so a stateful tool (`lookup` after `search`) goes on as if it had. With
 * `keepFullOutput`, a call that ran here keeps its full output for the step.
 */
async function recordedTool(
  record: (effect: () => Promise<ToolRecord>) => Promise<ToolRecord | ToolOutcome>,
  execute: () => Promise<ToolOutcome>,
  snapshot: ToolSnapshot | undefined,
  keepFullOutput: boolean,
): Promise<ToolOutcome> {
  let ran = false;
  let fullOutput: string | undefined;
  const recorded = await record(async () => {
    ran = true;
    const executed = await execute();
    fullOutput = executed.fullOutput;
    const outcome = { ok: executed.ok, observation: executed.observation, durationMs: executed.durationMs };
    const saved = snapshot ? savedSnapshot(snapshot) : undefined;
    return saved === undefined ? { outcome } : { outcome, snapshot: saved };
  });
  // A journal an earlier taoloop wrote may hold the outcome alone (no snapshot): both are read.
  const { outcome, snapshot: saved } =
    'outcome' in recorded ? recorded : { outcome: recorded, snapshot: undefined };
  if (!ran && saved !== undefined) snapshot?.restore(saved);
  return keepFullOutput && ran && fullOutput !== undefined ? { ...outcome, fullOutput } : outcome;
}

/** The snapshot to record, or `undefined` when saving fails or it is too large. */
function savedSnapshot(snapshot: ToolSnapshot): unknown {
  try {
    const saved = snapshot.save();
    const json = JSON.stringify(saved);
    return json === undefined || json.length > MAX_SNAPSHOT_CHARS ? undefined : JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** Runs a generator to its end, passing over what it yields, and returns its result. */
export async function drain<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
  let next = await generator.next();
  while (!next.done) next = await generator.next();
  return next.value;
}

/**
 * A model call that does not stream (a hook's `generate`, a `repairToolCall`) through `effects`, under
 * `name`: made once, replayed on resume.
 */
export function recordedCall<T>(effects: RunEffects, name: string, call: () => Promise<T>): Promise<T> {
  return drain(
    // biome-ignore lint/correctness/useYield: a call that streams nothing is still a model call to record.
    effects.model(name, async function* () {
      return await call();
    }),
  );
}
