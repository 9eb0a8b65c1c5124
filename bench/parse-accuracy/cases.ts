/**
 * The turns scored by the parse-accuracy bench: the hand-written hard corpus and the model turns of the
 * ReAct paper's recorded GPT-3 FEVER runs.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a parser should make of a turn. `none`: the parser refuses the turn. */
export type Expected =
  | { type: 'action'; tool: string; input: string }
  | { type: 'answer'; text: string }
  | { type: 'none' };

/** One model turn to parse. */
export interface Case {
  id: string;
  /** The difficulty it exercises (`emphasis-label`, `json-input`, ...), or `recorded` for the FEVER runs. */
  kind: string;
  text: string;
  tools: string[];
  expect: Expected;
  /** Label language for non-English turns: `pt`, `fr`, `id`. */
  language?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');

function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** The hand-written corpus, `corpus.jsonl` next to this file. */
export function loadCorpus(): Case[] {
  return readJsonl(join(here, 'corpus.jsonl')) as Case[];
}

interface Step {
  step: number;
  thought: string;
  action: string;
}

/**
 * The recorded runs: all 200 from the shared data when present, else the 15-run test fixture. Each step
 * is rebuilt as the model wrote it, `Thought i: ...\nAction i: ...`. The expected result comes from the
 * recorded action: `Tool[x]` is tool `tool` with input `x`, `Finish[x]` is the answer `x`; the six
 * malformed actions are `Lookup[x] on different website` (the lookup of `x`) and a bare `Login` (none).
 */
export function loadRecorded(): { source: string; sample: boolean; cases: Case[] } {
  const shared = join(repoRoot, '..', 'shared', 'react-data', 'trajectories');
  const full = join(shared, 'react_fever_gpt3-text-davinci-002_first200.jsonl');
  const fixture = join(repoRoot, 'test', 'fixtures', 'fever-trajectories-sample.jsonl');
  const path = existsSync(full) ? full : fixture;
  const cases: Case[] = [];
  for (const run of readJsonl(path) as { question_idx: number; steps: Step[] }[]) {
    for (const step of run.steps) {
      cases.push({
        id: `fever-${run.question_idx}-${step.step}`,
        kind: 'recorded',
        text: `Thought ${step.step}: ${step.thought}\nAction ${step.step}: ${step.action}`,
        tools: ['search', 'lookup'],
        expect: expectedOf(step.action),
      });
    }
  }
  const sample = path !== full;
  return {
    source: sample ? 'test fixture, 15 of the 200 runs' : 'shared/react-data, 200 runs',
    sample,
    cases,
  };
}

function expectedOf(action: string): Expected {
  const match = /^(\w+)\[(.*)\](?: on different website)?$/s.exec(action);
  if (!match) return { type: 'none' };
  const [, tool = '', input = ''] = match;
  if (tool.toLowerCase() === 'finish') return { type: 'answer', text: input };
  return { type: 'action', tool: tool.toLowerCase(), input };
}
