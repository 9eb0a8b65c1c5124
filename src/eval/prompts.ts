/**
 * Few-shot prompts for the evaluated strategies: the ReAct paper's own prompt files, or the user's.
 *
 * Source: Yao et al. 2022, section 3.2 and appendix C (6 HotpotQA and 3 FEVER hand-written trajectories);
 * `prompts/prompts_naive.json` and `prompts/fever.json` in ysymyth/ReAct.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FewShotExample, parseExamples } from '../react/examples.js';
import { type DatasetKind, EvalConfigError } from './datasets.js';

/** Which prompt a strategy uses: ReAct, Act, chain of thought, or standard (question → answer). */
export type PromptKind = 'react' | 'act' | 'cot' | 'standard';

/** Prompt texts in the paper's format, by kind. */
export type PromptSet = Partial<Record<PromptKind, string>>;

/** The paper's file and keys for each dataset kind. */
export const PAPER_PROMPTS: Readonly<
  Record<DatasetKind, { file: string; keys: Readonly<Record<PromptKind, string>> }>
> = {
  qa: {
    file: 'prompts/prompts_naive.json',
    keys: {
      react: 'webthink_simple6',
      act: 'webact_simple6',
      cot: 'cotqa_simple6',
      standard: 'webqa_simple6',
    },
  },
  fever: {
    file: 'prompts/fever.json',
    keys: {
      react: 'webthink_simple3',
      act: 'webact_simple3',
      cot: 'cotqa_simple3',
      standard: 'webqa_simple3',
    },
  },
};

/**
 * The task statement of the paper's FEVER prompts, which a zero-shot FEVER run keeps: without examples,
 * it is what tells the model the three labels.
 */
export const FEVER_TASK =
  'Determine if there is Observation that SUPPORTS or REFUTES a Claim, or if there is NOT ENOUGH INFORMATION. Answer SUPPORTS, REFUTES or NOT ENOUGH INFO.';

/**
 * Prompts without examples for the `needed` kinds (zero-shot): empty for question answering, the task
 * statement ({@link FEVER_TASK}) for FEVER claims. The strategies then give the model only their own
 * instructions (the ReAct format and the tools, or the answer format).
 */
export function zeroShotPrompts(kind: DatasetKind, needed: readonly PromptKind[]): PromptSet {
  const text = kind === 'fever' ? FEVER_TASK : '';
  return Object.fromEntries(needed.map((wanted) => [wanted, text]));
}

/** Options for {@link loadPrompts}. */
export interface LoadPromptsOptions {
  /**
   * A JSON object of prompt texts keyed by kind (`react`, `act`, `cot`, `standard`) or by the paper's keys
   * (`webthink_simple6`, ...). @default the paper's file for the dataset kind
   */
  promptsFile?: string;
  /** Finds the data folder holding `prompts/`; called only without `promptsFile`. */
  dataDir: () => string;
}

/**
 * Loads the prompts that `needed` kinds use for a dataset kind.
 *
 * @throws {EvalConfigError} when the file is missing or not a JSON object, or lacks a needed prompt.
 */
export function loadPrompts(
  kind: DatasetKind,
  needed: readonly PromptKind[],
  options: LoadPromptsOptions,
): PromptSet {
  const paper = PAPER_PROMPTS[kind];
  const file = options.promptsFile ?? join(options.dataDir(), paper.file);
  if (!existsSync(file)) {
    throw new EvalConfigError(
      `Prompt file ${file} not found. Pass --prompts FILE.json ({"react": "...", "cot": "...", ...}) or point --data-dir at the ReAct data folder.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new EvalConfigError(`Prompt file ${file} is not valid JSON.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EvalConfigError(`Prompt file ${file} must hold a JSON object of prompt texts.`);
  }
  const texts = new Map(Object.entries(parsed));
  const prompts: PromptSet = {};
  for (const wanted of needed) {
    const text = texts.get(wanted) ?? texts.get(paper.keys[wanted]);
    if (typeof text !== 'string') {
      throw new EvalConfigError(
        `Prompt file ${file} has no "${wanted}" (or "${paper.keys[wanted]}") prompt, which the chosen strategies need.`,
      );
    }
    prompts[wanted] = text;
  }
  return prompts;
}

/** A paper prompt split into the agent's options: the instructions before the examples, and the examples. */
export interface AgentPrompt {
  /** Text before the first example (the FEVER prompt's task statement), or `''`. */
  instructions: string;
  examples: FewShotExample[];
}

/**
 * Splits a ReAct or Act prompt into instructions and structured examples, so that the loop renders the
 * examples in its own format (unnumbered labels, lower-case tools) and parses the model's turns the same
 * way.
 */
export function agentPrompt(text: string): AgentPrompt {
  const { preamble, examples } = parseExamples(text);
  return { instructions: preamble, examples };
}
