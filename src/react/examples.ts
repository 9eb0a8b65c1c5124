/**
 * Few-shot examples: worked trajectories placed in the prompt, rendered in the run's label set.
 *
 * The ReAct paper prompts with six (HotpotQA) or three (FEVER) hand-written trajectories
 * (Yao et al. 2022, section 3.2; `prompts/*.json` in ysymyth/ReAct). {@link parseExamples} reads that
 * format; {@link renderExamples} writes examples with any {@link LabelSet}, so a Portuguese run gets
 * Portuguese examples.
 *
 * @module
 */
import { ENGLISH_LABELS, type LabelSet, primaryLabels } from './labels.js';

/** One step of a worked example. */
export interface ExampleStep {
  thought?: string;
  /** The action; the paper's `Finish[x]` is kept as the action `finish` with input `x`. */
  action?: { tool: string; input: string };
  observation?: string;
  /** A direct answer (chain-of-thought examples write `Answer:` instead of an action). */
  answer?: string;
}

/** A worked example: the question (or claim) and its trajectory. */
export interface FewShotExample {
  question: string;
  steps: ExampleStep[];
}

/** What {@link parseExamples} found. */
export interface ParsedExamples {
  /** Instructions written before the first example (the FEVER prompt has one), trimmed. */
  preamble: string;
  examples: FewShotExample[];
}

const LINE = /^(Question|Claim|Thought|Action|Observation|Answer)(?:\s+\d+)?\s*:\s?(.*)$/;
const ACTION = /^([^\s[\]]+)\[([\s\S]*)\]$/;

/**
 * Parses prompts in the paper's format: `Question:` (or `Claim:`) then numbered `Thought i:`,
 * `Action i: Tool[input]`, `Observation i:` lines, or `Thought:` then `Answer:` for chain of thought.
 * Tool names are lower-cased (`Search` → `search`) to match taoloop's tools. A line without a label
 * continues the previous field.
 */
export function parseExamples(text: string): ParsedExamples {
  const examples: FewShotExample[] = [];
  const preamble: string[] = [];
  let current: FewShotExample | undefined;
  let last: { step: ExampleStep; field: keyof ExampleStep } | { example: FewShotExample } | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = LINE.exec(line);
    if (!match) {
      if (!current) preamble.push(line);
      else if (last && 'example' in last) last.example.question += `\n${line}`;
      else if (last && last.field !== 'action' && line.trim()) last.step[last.field] += `\n${line}`;
      continue;
    }
    const [, label, value = ''] = match;
    if (label === 'Question' || label === 'Claim') {
      current = { question: value.trim(), steps: [] };
      examples.push(current);
      last = { example: current };
      continue;
    }
    if (!current) continue;
    last = addField(current, label as 'Thought' | 'Action' | 'Observation' | 'Answer', value.trim());
  }
  return { preamble: preamble.join('\n').trim(), examples };
}

function addField(
  example: FewShotExample,
  label: 'Thought' | 'Action' | 'Observation' | 'Answer',
  value: string,
) {
  let step = example.steps.at(-1);
  const fresh = () => {
    step = {};
    example.steps.push(step);
    return step;
  };
  if (
    !step ||
    (label === 'Thought' && (step.thought !== undefined || step.action || step.answer !== undefined))
  )
    step = fresh();
  if (label === 'Action' && (step.action || step.observation !== undefined)) step = fresh();
  switch (label) {
    case 'Thought':
      step.thought = value;
      return { step, field: 'thought' as const };
    case 'Action': {
      const action = ACTION.exec(value);
      step.action = action
        ? { tool: action[1]!.toLowerCase(), input: action[2]! }
        : { tool: value.toLowerCase(), input: '' };
      return { step, field: 'action' as const };
    }
    case 'Observation':
      step.observation = value;
      return { step, field: 'observation' as const };
    case 'Answer':
      step.answer = value;
      return { step, field: 'answer' as const };
  }
}

/** Renders examples in the label set's written forms, one blank line between examples. */
export function renderExamples(
  examples: readonly FewShotExample[],
  labels: LabelSet = ENGLISH_LABELS,
): string {
  const l = primaryLabels(labels);
  return examples
    .map((example) => {
      const lines = [`${l.question}: ${example.question}`];
      for (const step of example.steps) {
        if (step.thought !== undefined) lines.push(`${l.thought}: ${step.thought}`);
        if (step.action) {
          const tool = step.action.tool === 'finish' ? l.finish : step.action.tool;
          lines.push(`${l.action}: ${tool}[${step.action.input}]`);
        }
        if (step.observation !== undefined) lines.push(`${l.observation}: ${step.observation}`);
        if (step.answer !== undefined) lines.push(`${l.answer}: ${step.answer}`);
      }
      return lines.join('\n');
    })
    .join('\n\n');
}
