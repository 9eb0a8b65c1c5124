/**
 * A team's own cases: the JSONL format (one case a line), its parser, and the scoring of one try against
 * a case's expectations. Portable: no file system; the runner reads the file and passes its text.
 *
 * @module
 */
import { z } from 'zod';
import type { AgentMessage, StopReason } from '../agent/types.js';
import type { ModelUsage } from '../models/types.js';
import { f1Score, normalizeAnswer } from './metrics.js';

/** What a try must show to pass. Every field is optional; `{}` checks only that the run answered. */
export interface CaseExpectations {
  /** Exact match: the answer, trimmed, equals this string (compared as it is, case and all). */
  answer?: string;
  /** The paper's exact match: the answer equals one of these golds after `normalizeAnswer` (HotpotQA). */
  em?: string | string[];
  /** HotpotQA token F1 (`f1Score`) against `gold` is at least `min` (0 to 1). */
  f1?: { gold: string; min: number };
  /** The answer matches this regular expression (a pattern, or a pattern with flags such as `i`). */
  regex?: string | { pattern: string; flags?: string };
  /** Each phrase occurs in the answer, ignoring case. */
  includes?: string | string[];
  /**
   * A JSON Schema the typed output must satisfy: the run's `output` when it has one, else the answer
   * parsed as JSON. Read with zod's `z.fromJSONSchema`; a schema zod cannot read is a parse error.
   */
  schema?: Record<string, unknown>;
  /** The name of a scorer passed to {@link scoreCase} (see {@link CaseScorer}). */
  scorer?: string;
  /** Tools that must each be called at least once. */
  toolsCalled?: string[];
  /** Tools that must not be called. */
  toolsNotCalled?: string[];
  /** The run takes at most this many steps. */
  maxSteps?: number;
  /** The run costs at most this much (USD). A try whose cost is unknown (no price) fails this check. */
  maxCostUsd?: number;
  /** How the run must end. @default 'answered' */
  status?: StopReason;
}

/** One case: a question (or a conversation) and what its answer must show. */
export interface AgentCase {
  /** Unique in its file. @default `line-<n>`, n the 1-based line number */
  id: string;
  /** The question; exactly one of `question` and `messages` is set. */
  question?: string;
  /** A conversation of plain-text user and assistant turns, the last from the user. */
  messages?: AgentMessage[];
  expect: CaseExpectations;
  /** Free labels, for choosing and grouping cases. */
  tags?: string[];
}

/** The facts of one try that scoring reads (a subset of the run's result). */
export interface CaseRunFacts {
  status: StopReason;
  /** The answer, or `null` when the run did not answer. */
  answer: string | null;
  /** The typed output (`RunResult.output`), when the run had an `output` schema. */
  output?: unknown;
  /** Names of the tools called, in call order (a name once per call). */
  toolCalls: string[];
  steps: number;
  /** USD; `undefined` when unknown (no price for the model). */
  costUsd?: number | undefined;
  /** What went wrong, for a run that did not answer. */
  error?: string | undefined;
}

/** The outcome of one expectation; `name` is the expectation's key (`status`, `answer`, `em`, ...). */
export interface CaseCheck {
  name: string;
  passed: boolean;
  /** What was found, e.g. `expected "Paris", got "Lyon"`. */
  detail: string;
}

/** What a {@link CaseScorer} may return. */
export type CaseScorerResult = boolean | number | { passed: boolean; detail?: string };

/**
 * A scorer of your own, named in a case by `expect.scorer`. It passes when it returns `true`, the number
 * `1` (exactly: a score of 0.8 fails), or an object whose own `passed` is `true`. Anything else fails
 * (fail closed), and so does a scorer that throws or rejects; its message becomes the check's detail.
 */
export type CaseScorer = (input: {
  testCase: AgentCase;
  run: CaseRunFacts;
}) => CaseScorerResult | Promise<CaseScorerResult>;

/** The record of one try of one case, one per line of a results file. */
export interface CaseTrial {
  caseId: string;
  /** 0-based try number. */
  trial: number;
  /** Which configuration ran it (for comparisons): a label such as the model id or 'a'/'b'. */
  config: string;
  modelId: string;
  status: StopReason;
  answer: string | null;
  output?: unknown;
  passed: boolean;
  checks: CaseCheck[];
  steps: number;
  toolCalls: string[];
  usage: ModelUsage;
  costUsd?: number;
  durationMs: number;
  /** The trace file of this try, when one was written. */
  trace?: string;
  /**
   * What the try ran, as `<configuration>.<case>` fingerprints (the model, step limit, system prompt and
   * tools; the case's text): a stored try is reused only for the same. Absent in results from before it.
   */
  fingerprint?: string;
  error?: string;
}

/** A line of a cases file that is not JSON or not a case. The message names `source:line`, the field and the fix. */
export class CaseFormatError extends Error {
  override name = 'CaseFormatError';
  /**
   * Makes the error.
   * @param message what is wrong, naming `source:line`, the field and the fix.
   */
  constructor(
    message: string,
    /** The file name (or label) given to {@link parseCases}. */
    readonly source: string,
    /** 1-based line number. */
    readonly line: number,
  ) {
    super(message);
  }
}

const STOP_REASONS: Record<StopReason, true> = {
  answered: true,
  max_steps: true,
  format_errors: true,
  repeated_action: true,
  budget: true,
  aborted: true,
  error: true,
  paused: true,
};
const stopReasons = Object.keys(STOP_REASONS) as [StopReason, ...StopReason[]];

const str = (what = 'a string') => z.string({ error: `expected ${what}` });
const nonEmpty = (what: string) => str(what).min(1, { error: `expected ${what}` });
const strings = z.array(str(), { error: 'expected a list of strings' });
const ONE_OR_MORE = 'expected a string or a non-empty list of strings';
const oneOrMore = z.union([str(), z.array(str()).min(1, { error: ONE_OR_MORE })], { error: ONE_OR_MORE });

function regexError(pattern: string, flags?: string): string | undefined {
  try {
    new RegExp(pattern, flags);
    return undefined;
  } catch (error) {
    return `${(error as Error).message}; write a JavaScript RegExp pattern (and flags such as "i")`;
  }
}

const regexSchema = z
  .union([str(), z.strictObject({ pattern: str(), flags: str().optional() })], {
    error: 'expected a pattern string or { "pattern": string, "flags"?: string }',
  })
  .superRefine((value, ctx) => {
    const error = typeof value === 'string' ? regexError(value) : regexError(value.pattern, value.flags);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });

const jsonSchemaSchema = z
  .record(z.string(), z.unknown(), { error: 'expected a JSON Schema object' })
  .superRefine((value, ctx) => {
    try {
      z.fromJSONSchema(value as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `zod cannot read this JSON Schema: ${(error as Error).message}`,
      });
    }
  });

const FROM_0_TO_1 = 'expected a number from 0 to 1';
const expectSchema = z
  .strictObject(
    {
      answer: str(),
      em: oneOrMore,
      f1: z.strictObject(
        {
          gold: str(),
          min: z.number({ error: FROM_0_TO_1 }).min(0, { error: FROM_0_TO_1 }).max(1, { error: FROM_0_TO_1 }),
        },
        { error: 'expected { "gold": string, "min": number from 0 to 1 }' },
      ),
      regex: regexSchema,
      includes: oneOrMore,
      schema: jsonSchemaSchema,
      scorer: nonEmpty('a scorer name'),
      toolsCalled: strings,
      toolsNotCalled: strings,
      maxSteps: z
        .number({ error: 'expected a whole number ≥ 1' })
        .int({ error: 'expected a whole number ≥ 1' })
        .min(1, { error: 'expected a whole number ≥ 1' }),
      maxCostUsd: z.number({ error: 'expected a number of USD ≥ 0' }).min(0, { error: 'expected ≥ 0' }),
      status: z.enum(stopReasons, { error: `expected one of ${stopReasons.join(', ')}` }),
    },
    { error: 'expected an object of expectations such as { "answer": "Paris" }' },
  )
  .partial();

const messageSchema = z.strictObject(
  {
    role: z.enum(['user', 'assistant'], { error: 'expected "user" or "assistant"' }),
    content: str('a string (plain text)'),
  },
  { error: 'expected { "role": "user" | "assistant", "content": string }' },
);

const caseShape = {
  id: nonEmpty('a non-empty string').optional(),
  question: nonEmpty('a non-empty string').optional(),
  messages: z
    .array(messageSchema, { error: 'expected a list of { "role", "content" } messages' })
    .min(1, { error: 'expected at least one message' })
    .refine((list) => list.length === 0 || list.at(-1)?.role === 'user', {
      error: 'the last message must be from the user',
    })
    .optional(),
  expect: expectSchema.optional(),
  tags: strings.optional(),
};

/** The zod schema of one line of a cases file (before the `id` default and the duplicate check). */
export const caseLineSchema = z
  .strictObject(caseShape, {
    error: 'expected a JSON object such as { "question": "...", "expect": { "answer": "..." } }',
  })
  .superRefine((value, ctx) => {
    if (value.question !== undefined && value.messages !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['messages'],
        message: 'write "question" or "messages", not both',
      });
    if (value.question === undefined && value.messages === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'each case needs "question" (a string) or "messages" (a list)',
      });
  });

const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': Object.keys(caseShape),
  expect: Object.keys(expectSchema.shape),
  f1: ['gold', 'min'],
  regex: ['pattern', 'flags'],
  messages: ['role', 'content'],
};

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const at = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const named = issue.path.filter((p) => typeof p === 'string').at(-1) ?? '';
    const known = KNOWN_KEYS[String(named)] ?? [];
    return issue.keys
      .map((key) => {
        const limit = Math.min(2, Math.floor(key.length / 3));
        const near = known.find(
          (k) => k.toLowerCase() === key.toLowerCase() || editDistance(k, key) <= limit,
        );
        const fix = near ? `did you mean "${near}"?` : `the keys are ${known.join(', ')}`;
        return `${at ? `${at}.` : ''}${key}: unknown key; ${fix}`;
      })
      .join('; ');
  }
  return at ? `${at}: ${issue.message}` : issue.message;
}

/**
 * Reads a cases file: JSONL, one case a line (`caseLineSchema`); blank lines are skipped.
 *
 * @param text - the file's text.
 * @param source - the name used in error messages, such as `cases.jsonl`.
 * @throws CaseFormatError for a line that is not JSON, not a valid case (an unknown key, both or neither
 *   of `question` and `messages`, an invalid regex or JSON Schema, ...), or whose id is already used,
 *   e.g. `cases.jsonl:3: expect.maxSteps: expected a whole number ≥ 1`.
 */
export function parseCases(text: string, source = 'cases'): AgentCase[] {
  const cases: AgentCase[] = [];
  const lineOfId = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    const fail = (message: string) => new CaseFormatError(`${source}:${line}: ${message}`, source, line);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw fail(`not valid JSON (${(error as Error).message}); write one JSON object per line`);
    }
    const parsed = caseLineSchema.safeParse(json);
    if (!parsed.success) throw fail(parsed.error.issues.map(describeIssue).join('; '));
    const value = parsed.data;
    const id = value.id ?? `line-${line}`;
    const earlier = lineOfId.get(id);
    if (earlier !== undefined)
      throw fail(`id: "${id}" is already used on line ${earlier}; give each case its own id`);
    lineOfId.set(id, line);
    // zod leaves absent keys absent, so its output fits the exact optional types.
    const testCase: AgentCase = { id, expect: (value.expect ?? {}) as CaseExpectations };
    if (value.question !== undefined) testCase.question = value.question;
    if (value.messages !== undefined) testCase.messages = value.messages;
    if (value.tags !== undefined) testCase.tags = value.tags;
    cases.push(testCase);
  }
  return cases;
}

const MAX_QUOTE = 200;
const quote = (text: string) =>
  JSON.stringify(text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text);
const list = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value;

async function runScorer(
  name: string,
  scorers: Readonly<Record<string, CaseScorer>>,
  input: { testCase: AgentCase; run: CaseRunFacts },
): Promise<CaseCheck> {
  const check = (passed: boolean, detail: string): CaseCheck => ({ name: 'scorer', passed, detail });
  const scorer = Object.hasOwn(scorers, name) ? scorers[name] : undefined;
  if (typeof scorer !== 'function') {
    const known = Object.keys(scorers);
    const which = known.length ? `the scorers are ${known.join(', ')}` : 'none were passed in';
    return check(false, `no scorer named "${name}"; ${which}`);
  }
  try {
    const result: unknown = await scorer(input);
    if (result === true) return check(true, `${name}: true`);
    if (typeof result === 'number')
      return check(
        result === 1,
        `${name}: ${result}${result === 1 ? '' : ' (a number passes only when it is 1)'}`,
      );
    if (typeof result === 'object' && result !== null && Object.hasOwn(result, 'passed')) {
      const { passed, detail } = result as { passed: unknown; detail?: unknown };
      const said = typeof detail === 'string' && detail !== '' ? `: ${detail}` : '';
      if (passed === true || passed === false) return check(passed, `${name}${said}`);
    }
    if (result === false) return check(false, `${name}: false`);
    const shown = typeof result === 'string' ? quote(result) : String(result);
    return check(
      false,
      `${name} returned ${shown}; return true/false, a number (1 passes) or { passed: boolean }`,
    );
  } catch (error) {
    return check(false, `${name} threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function schemaCheck(schema: Record<string, unknown>, run: CaseRunFacts): CaseCheck {
  const check = (passed: boolean, detail: string): CaseCheck => ({ name: 'schema', passed, detail });
  let value = run.output;
  if (value === undefined) {
    if (run.answer === null) return check(false, `no answer (status ${run.status})`);
    try {
      value = JSON.parse(run.answer);
    } catch {
      return check(false, `the answer is not JSON: ${quote(run.answer)}`);
    }
  }
  const result = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value);
  if (result.success) return check(true, 'the output fits the schema');
  return check(
    false,
    result.error.issues.map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`).join('; '),
  );
}

/**
 * Scores one try against its case. The checks come in a fixed order, `status` first (default: the run
 * must have answered), then one check per expectation present. A check on the answer fails with
 * `no answer (status X)` when there is none. A scorer never crashes scoring (see {@link CaseScorer}).
 *
 * @param scorers - the functions `expect.scorer` may name, looked up as own properties only.
 * @returns `passed` (true only when every check passed) and every check with its detail.
 */
export async function scoreCase(
  testCase: AgentCase,
  run: CaseRunFacts,
  scorers: Readonly<Record<string, CaseScorer>> = {},
): Promise<{ passed: boolean; checks: CaseCheck[] }> {
  const e = testCase.expect;
  const checks: CaseCheck[] = [];
  const status = e.status ?? 'answered';
  const why = run.error ? ` (${run.error})` : '';
  checks.push({
    name: 'status',
    passed: run.status === status,
    detail: run.status === status ? run.status : `expected ${status}, got ${run.status}${why}`,
  });
  const onAnswer = (name: string, test: (answer: string) => [boolean, string]) => {
    if (run.answer === null)
      return checks.push({ name, passed: false, detail: `no answer (status ${run.status})` });
    const [passed, detail] = test(run.answer);
    return checks.push({ name, passed, detail });
  };
  const expected = e.answer;
  if (expected !== undefined)
    onAnswer('answer', (a) => [a.trim() === expected, `expected ${quote(expected)}, got ${quote(a.trim())}`]);
  if (e.em !== undefined) {
    const golds = list(e.em);
    onAnswer('em', (a) => [
      golds.some((gold) => normalizeAnswer(a) === normalizeAnswer(gold)),
      `normalised ${quote(normalizeAnswer(a))} against ${golds.map(quote).join(' / ')}`,
    ]);
  }
  const f1 = e.f1;
  if (f1 !== undefined)
    onAnswer('f1', (a) => {
      const score = f1Score(a, f1.gold).f1;
      return [score >= f1.min, `F1 ${score.toFixed(3)} (at least ${f1.min}) against ${quote(f1.gold)}`];
    });
  const regex = e.regex;
  if (regex !== undefined)
    onAnswer('regex', (a) => {
      const re = typeof regex === 'string' ? new RegExp(regex) : new RegExp(regex.pattern, regex.flags);
      return [re.test(a), `${re} against ${quote(a)}`];
    });
  if (e.includes !== undefined) {
    const phrases = list(e.includes);
    onAnswer('includes', (a) => {
      const missing = phrases.filter((p) => !a.toLowerCase().includes(p.toLowerCase()));
      return [
        missing.length === 0,
        missing.length ? `missing ${missing.map(quote).join(', ')}` : 'all found',
      ];
    });
  }
  if (e.schema !== undefined) checks.push(schemaCheck(e.schema, run));
  if (e.scorer !== undefined) checks.push(await runScorer(e.scorer, scorers, { testCase, run }));
  const called = run.toolCalls.length ? `called: ${run.toolCalls.join(', ')}` : 'no tool was called';
  if (e.toolsCalled !== undefined) {
    const never = e.toolsCalled.filter((t) => !run.toolCalls.includes(t));
    const detail = never.length ? `never called: ${never.join(', ')}; ${called}` : called;
    checks.push({ name: 'toolsCalled', passed: never.length === 0, detail });
  }
  if (e.toolsNotCalled !== undefined) {
    const forbidden = e.toolsNotCalled.filter((t) => run.toolCalls.includes(t));
    const detail = forbidden.length ? `must not call: ${forbidden.join(', ')}; ${called}` : called;
    checks.push({ name: 'toolsNotCalled', passed: forbidden.length === 0, detail });
  }
  if (e.maxSteps !== undefined)
    checks.push({
      name: 'maxSteps',
      passed: run.steps <= e.maxSteps,
      detail: `${run.steps} steps (at most ${e.maxSteps})`,
    });
  if (e.maxCostUsd !== undefined) {
    const cost = run.costUsd;
    checks.push(
      cost === undefined
        ? { name: 'maxCostUsd', passed: false, detail: 'cost unknown: no price known for this model' }
        : { name: 'maxCostUsd', passed: cost <= e.maxCostUsd, detail: `$${cost} (at most $${e.maxCostUsd})` },
    );
  }
  return { passed: checks.every((c) => c.passed), checks };
}
