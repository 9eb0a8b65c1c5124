/**
 * Replaying recorded ReAct runs: the recorded model turns are replayed as the model and the recorded
 * observations are served as the environment, either through the paper's own episode logic (strict action
 * matching) or through taoloop's loop and parser. A replayed run ends where its recorded turns end; it
 * never invents a turn.
 *
 * Source: Yao et al. 2022, section 3 (the FEVER runs of table 1); the recorded GPT-3 runs in
 * `react-data/trajectories/`.
 *
 * @module
 */
import { runAgent } from '../agent/loop.js';
import type { StopReason } from '../agent/types.js';
import type { Model } from '../models/types.js';
import { ENGLISH_LABELS } from '../react/labels.js';
import type { Tool } from '../tools/types.js';
import { exactMatch } from './metrics.js';
import {
  PAPER_MAX_STEPS,
  paperAction,
  paperObservation,
  paperSplit,
  type RecordedRun,
  readRecordedRuns,
  recordedTurns,
} from './paper-env.js';

/** Which reading of the model's turns to replay with. */
export type ReplayParser = 'paper' | 'taoloop';

/** One replayed run. */
export interface ReplayedRun {
  questionIdx: number;
  claim: string;
  gold: string;
  /** The final answer; `null` when the run ended without one (the paper's forced `finish[]` gives `''`). */
  answer: string | null;
  reward: 0 | 1;
  /** The reward the recording itself reports. */
  recordedReward: number;
  /** Recorded turns used, and how many there were. */
  turnsUsed: number;
  turnsRecorded: number;
  /**
   * How it ended: `finished` / `forced-finish` (paper), a loop stop reason (taoloop), or
   * `recording-ended` when the loop asked for a turn the recording does not have.
   */
  ended: 'finished' | 'forced-finish' | 'recording-ended' | StopReason;
  /** Paper parser: steps where the environment's own answer differs from the recorded observation. */
  envMismatches: string[];
  /**
   * How each used turn was read: `search`, `lookup`, `think`, `finish` (an answer) or `invalid` (the
   * paper's `Invalid action`, taoloop's format error).
   */
  readings: string[];
}

/** The result of {@link replayRecordedRuns}. */
export interface ReplayReport {
  parser: ReplayParser;
  runs: ReplayedRun[];
  /** Runs with reward 1. */
  correct: number;
  total: number;
}

/**
 * Replays every run in a trajectories file (the `react-data` format) and scores it against its label.
 *
 * - `paper`: the notebook's episode: split the completion on `\nAction i: `, read the action with the
 *   environment's strict matching, stop at `finish[...]`, else a forced `finish[]` after the recorded
 *   turns. Observations the environment makes itself (invalid action, episode finished) are checked against
 *   the recording.
 * - `taoloop`: {@link runAgent} with a model that replays `Thought i: <completion>` and `search` / `lookup`
 *   tools that serve the recorded observation of the current turn; at most 7 steps, as in the paper.
 */
export async function replayRecordedRuns(
  file: string,
  options: { parser: ReplayParser },
): Promise<ReplayReport> {
  const runs: ReplayedRun[] = [];
  for (const run of readRecordedRuns(file)) {
    runs.push(options.parser === 'paper' ? replayPaper(run) : await replayTaoloop(run));
  }
  return {
    parser: options.parser,
    runs,
    correct: runs.filter((r) => r.reward === 1).length,
    total: runs.length,
  };
}

/** Replays one run through the paper's episode logic. */
export function replayPaper(run: RecordedRun): ReplayedRun {
  const turns = recordedTurns(run).slice(0, PAPER_MAX_STEPS);
  const envMismatches: string[] = [];
  let answer: string | undefined;
  const readings: string[] = [];
  for (const turn of turns) {
    // Without a clean split the notebook asked the model again for the action alone: the recorded action.
    const action = paperAction(paperSplit(turn.completion, turn.step)?.action ?? turn.action);
    readings.push(action.type);
    if (action.type === 'finish') answer = action.answer;
    const expected = paperObservation(action, answer === undefined ? 0 : exactMatch(answer, run.gt_answer));
    if (expected !== undefined && expected !== turn.observation.trim()) {
      envMismatches.push(
        `step ${turn.step}: expected ${JSON.stringify(expected)}, recorded ${JSON.stringify(turn.observation)}`,
      );
    }
    if (answer !== undefined) break;
  }
  const forced = answer === undefined;
  const final = answer ?? '';
  return {
    ...identity(run),
    answer: final,
    reward: exactMatch(final, run.gt_answer),
    turnsUsed: readings.length,
    turnsRecorded: run.steps.length,
    ended: forced ? 'forced-finish' : 'finished',
    envMismatches,
    readings,
  };
}

/** Replays one run through taoloop's loop and parser. */
export async function replayTaoloop(run: RecordedRun): Promise<ReplayedRun> {
  const turns = recordedTurns(run);
  let current = -1;
  let exhausted = false;
  const model: Model = {
    id: `replay:${run.question_idx}`,
    async generate() {
      current += 1;
      const turn = turns[current];
      if (turn === undefined) {
        exhausted = true;
        throw new Error('the recording has no more turns');
      }
      return { text: `Thought ${turn.step}: ${turn.completion}`, usage: {}, finishReason: 'stop' };
    },
  };
  const served = (name: string): Tool => ({
    name,
    description: `${name} (replayed: the recorded observation)`,
    effects: 'read',
    run: async () => turns[current]?.observation ?? '',
  });
  const result = await runAgent({
    model,
    question: run.claim,
    tools: [served('search'), served('lookup')],
    maxSteps: PAPER_MAX_STEPS,
    prompt: { labels: { ...ENGLISH_LABELS, question: ['Claim', 'Question'] } },
    modelSettings: { streaming: false },
  });
  const answer = result.status === 'answered' ? (result.answer ?? null) : null;
  return {
    ...identity(run),
    answer,
    reward: exactMatch(answer, run.gt_answer),
    turnsUsed: result.steps.length,
    turnsRecorded: run.steps.length,
    ended: exhausted ? 'recording-ended' : result.status,
    envMismatches: [],
    readings: result.steps.map(({ turn }) =>
      turn.type === 'action' ? turn.tool : turn.type === 'answer' ? 'finish' : 'invalid',
    ),
  };
}

function identity(run: RecordedRun) {
  return { questionIdx: run.question_idx, claim: run.claim, gold: run.gt_answer, recordedReward: run.reward };
}

/** A run replayed two ways (matched by question index). */
export interface ChangedRun {
  questionIdx: number;
  gold: string;
  before: ReplayedRun;
  after: ReplayedRun;
}

/** The answer a replay ended with; the paper's forced `finish[]` counts as none. */
function finalAnswer(run: ReplayedRun): string | null {
  return run.ended === 'forced-finish' ? null : run.answer;
}

function pairs(before: ReplayReport, after: ReplayReport): ChangedRun[] {
  const afterByIdx = new Map(after.runs.map((run) => [run.questionIdx, run]));
  return before.runs.flatMap((run) => {
    const other = afterByIdx.get(run.questionIdx);
    return other ? [{ questionIdx: run.questionIdx, gold: run.gold, before: run, after: other }] : [];
  });
}

/** The runs whose reward or final answer differs between two replays of the same file. */
export function changedRuns(before: ReplayReport, after: ReplayReport): ChangedRun[] {
  return pairs(before, after).filter(
    ({ before: a, after: b }) => a.reward !== b.reward || finalAnswer(a) !== finalAnswer(b),
  );
}

/** The runs with the same reward and answer that ended after a different number of recorded turns. */
export function endedDifferently(before: ReplayReport, after: ReplayReport): ChangedRun[] {
  const changed = new Set(changedRuns(before, after).map((c) => c.questionIdx));
  return pairs(before, after).filter(
    (c) => !changed.has(c.questionIdx) && c.before.turnsUsed !== c.after.turnsUsed,
  );
}

/** A turn that the two replays read as different actions. */
export interface TurnReading {
  questionIdx: number;
  step: number;
  paper: string;
  taoloop: string;
}

/** The turns, among those both replays used, that they read differently. */
export function turnsReadDifferently(paper: ReplayReport, taoloop: ReplayReport): TurnReading[] {
  return pairs(paper, taoloop).flatMap(({ questionIdx, before, after }) =>
    before.readings.flatMap((reading, i) => {
      const other = after.readings[i];
      return other === undefined || other === reading
        ? []
        : [{ questionIdx, step: i + 1, paper: reading, taoloop: other }];
    }),
  );
}

/** Both replays as Markdown: the two scores, then a table of the runs that changed. */
export function renderReplayMarkdown(file: string, paper: ReplayReport, taoloop: ReplayReport): string {
  const changed = changedRuns(paper, taoloop);
  const other = endedDifferently(paper, taoloop);
  const turns = turnsReadDifferently(paper, taoloop);
  const show = (run: ReplayedRun) =>
    `${run.answer === null ? '(none)' : JSON.stringify(run.answer)}, reward ${run.reward}, ${run.ended} after ${run.turnsUsed}/${run.turnsRecorded} turns`;
  const mismatches = paper.runs.reduce((n, run) => n + run.envMismatches.length, 0);
  return [
    '# Replay of recorded ReAct runs',
    '',
    `- File: \`${file}\``,
    `- Paper environment (strict action matching): **${paper.correct} / ${paper.total}**`,
    `- taoloop parser and loop: **${taoloop.correct} / ${taoloop.total}**`,
    `- Paper environment observations that differ from the recording: ${mismatches}`,
    '',
    `## Runs that changed (${changed.length})`,
    '',
    '| question_idx | label | paper environment | taoloop |',
    '|---|---|---|---|',
    ...changed.map((c) => `| ${c.questionIdx} | ${c.gold} | ${show(c.before)} | ${show(c.after)} |`),
    '',
    `## Same score, different end (${other.length})`,
    '',
    '| question_idx | label | paper environment | taoloop |',
    '|---|---|---|---|',
    ...other.map((c) => `| ${c.questionIdx} | ${c.gold} | ${show(c.before)} | ${show(c.after)} |`),
    '',
    `## Turns read differently (${turns.length})`,
    '',
    'The recorded observation is served either way, so a turn taoloop reads as an action still gets the',
    "paper environment's `Invalid action` observation.",
    '',
    '| question_idx | step | paper environment | taoloop |',
    '|---|---|---|---|',
    ...turns.map((t) => `| ${t.questionIdx} | ${t.step} | ${t.paper} | ${t.taoloop} |`),
    '',
  ].join('\n');
}
