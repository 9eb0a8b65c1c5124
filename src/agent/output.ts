/**
 * Typed answers: with `output` (a zod schema or any Standard Schema), the answer is JSON that must
 * validate; `result.output` is the parsed value. A failed validation, or a `hooks.checkAnswer` refusal,
 * goes back to the model as an observation saying what is wrong.
 *
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { describeIssues } from '../tools/validate.js';
import { errorMessage } from '../util/own.js';
import type { Step } from './types.js';

/** A schema for the answer: zod 4, valibot, arktype, ... (anything implementing Standard Schema v1). */
export type OutputSchema<O = unknown> = StandardSchemaV1<unknown, O>;

/** The value type a schema validates to. */
export type InferOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : string;

/** What an {@link AnswerCheck} is given. */
export interface AnswerCandidate<O = unknown> {
  /** The answer as the model wrote it (JSON text when `output` is set). */
  text: string;
  /** The parsed, validated value, when `output` is set. */
  output: O | undefined;
  /** The trajectory so far, the answering turn included. */
  steps: readonly Step[];
}

/**
 * Looks at an answer before the run accepts it. Return a message to refuse it: the message goes back to
 * the model as the observation and the model tries again. Return nothing (or `undefined`) to accept. A
 * check that throws refuses the answer with the error's message.
 */
export type AnswerCheck<O = unknown> = (
  answer: AnswerCandidate<O>,
) => string | undefined | Promise<string | undefined>;

/** Default for `AgentLimits.maxAnswerCorrections` (`limits.maxAnswerCorrections`). */
export const DEFAULT_MAX_ANSWER_CORRECTIONS = 2;

/**
 * The schema's JSON Schema (draft 7) when it can give one (`~standard.jsonSchema`, which zod 4 has), for
 * the prompt, the final-answer tool and local grammars.
 */
export function outputJsonSchema(schema: OutputSchema): Record<string, unknown> | undefined {
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1.Props> | undefined;
  const converter = props?.jsonSchema;
  if (!converter) return undefined;
  try {
    const json = { ...converter.output({ target: 'draft-07' }) };
    delete json.$schema;
    return json;
  } catch {
    return undefined;
  }
}

/** The lines added to the text-mode system prompt: write the answer as JSON matching the schema. */
export function outputInstructions(
  jsonSchema: Record<string, unknown> | undefined,
  answerLabel: string,
): string {
  const shape = jsonSchema
    ? ` matching this JSON Schema:\n${JSON.stringify(jsonSchema)}`
    : ' in the form the task asks for.';
  return `Write the final ${answerLabel} as one line of JSON after "${answerLabel}: ",${shape}`;
}

/** A parsed and validated answer, or what is wrong with it (worded for the model). */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Parses `text` as JSON (a Markdown code fence around it is allowed) and validates it against `schema`.
 * Never throws.
 */
export async function parseOutput(text: string, schema: OutputSchema): Promise<OutputCheck> {
  const json = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const detail = error instanceof SyntaxError ? ` (${error.message})` : '';
    return { ok: false, problem: `the answer is not valid JSON${detail}` };
  }
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(value);
  } catch (error) {
    return { ok: false, problem: `the answer could not be validated: ${errorMessage(error)}` };
  }
  if (result.issues)
    return { ok: false, problem: `the answer does not match the schema: ${describeIssues(result.issues)}` };
  return { ok: true, value: result.value };
}

/** An answer accepted (with its typed value when `output` is set), or refused with the observation to send. */
export type AnswerVerdict =
  | { ok: true; output?: unknown }
  | { ok: false; problem: string; observation: string };

/**
 * Decides on an answer: parsed and validated against `output` when set, then the `checkAnswer` checks.
 * Never throws.
 */
export async function judgeAnswer(
  text: string,
  steps: readonly Step[],
  options: {
    output?: OutputSchema | undefined;
    checkAnswer?: AnswerCheck | readonly AnswerCheck[] | undefined;
  },
  answerLabel: string,
): Promise<AnswerVerdict> {
  let output: unknown;
  if (options.output) {
    const parsed = await parseOutput(text, options.output);
    if (!parsed.ok) return refuse(parsed.problem, answerLabel, true);
    output = parsed.value;
  }
  const refusal = await runAnswerChecks(options.checkAnswer, { text, output, steps });
  if (refusal !== undefined) return refuse(refusal, answerLabel, options.output !== undefined);
  return options.output ? { ok: true, output } : { ok: true };
}

function refuse(problem: string, answerLabel: string, json: boolean): AnswerVerdict {
  return { ok: false, problem, observation: answerCorrection(problem, answerLabel, json) };
}

/** Runs the caller's checks in order; the first refusal wins. A check that throws refuses. */
export async function runAnswerChecks(
  checks: AnswerCheck | readonly AnswerCheck[] | undefined,
  candidate: AnswerCandidate,
): Promise<string | undefined> {
  const list = checks === undefined ? [] : typeof checks === 'function' ? [checks] : checks;
  for (const check of list) {
    try {
      const refusal = await check(candidate);
      if (typeof refusal === 'string') return refusal || 'the answer was refused';
    } catch (error) {
      return `the answer check failed: ${errorMessage(error)}`;
    }
  }
  return undefined;
}

/** The observation that sends a refused answer back. */
export function answerCorrection(problem: string, answerLabel: string, json: boolean): string {
  const form = json ? ` as JSON that matches the schema` : '';
  return `Your ${answerLabel} was not accepted: ${problem}. Fix it and write the ${answerLabel} again${form}, or take another action first.`;
}
