/**
 * The playground's request bodies, parsed as the client's own data through zod schemas: the JSON is first
 * copied into objects without a prototype (`ownData`), so no field is ever read from a polluted
 * `Object.prototype`, and the parsed value is copied the same way, so a field the client left out reads as
 * `undefined`. Each schema's messages are what the page shows.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { ApprovalDecision } from '../agent/types.js';
import { OwnDataError, ownData } from '../ui/own-data.js';
import { HttpError, readJsonObject } from './http.js';

/** The step limit the page's slider allows. */
export const MAX_STEPS_RANGE = { min: 1, max: 20, default: 8 } as const;
/** Longest question accepted, in characters. */
export const MAX_QUESTION_CHARS = 4000;
/** Longest edited tool input accepted, in characters (the tool's own limit still applies). */
export const MAX_EDIT_CHARS = 10_000;
/** Longest rejection reason kept, in characters (a longer one is cut). */
const MAX_REASON_CHARS = 500;
/** Longest instructions accepted (added to the system prompt), in characters. */
export const MAX_INSTRUCTIONS_CHARS = 4000;
/** The temperature the page's control allows (`modelSettings.temperature`). */
export const TEMPERATURE_RANGE = { min: 0, max: 2, step: 0.1, default: 0 } as const;
/** Longest edited model turn or observation of a fork, in characters. */
export const MAX_FORK_TEXT_CHARS = 20_000;

const QUESTION = 'type a question first';
const MAX_STEPS = `maxSteps must be a whole number from ${MAX_STEPS_RANGE.min} to ${MAX_STEPS_RANGE.max}`;
const EDIT = `an edit needs the new input as a string of at most ${MAX_EDIT_CHARS} characters`;
const TEMPERATURE = `temperature must be a number from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max}`;
const FORK_STEP = 'step must be the number of a step of the run (1 or more)';
const FORK_TEXT = (what: string) => `the ${what} must be text of at most ${MAX_FORK_TEXT_CHARS} characters`;

/** `POST /api/runs`. `model` is checked against the offered specs by the caller (its message lists them). */
const RUN_BODY = z.object({
  question: z
    .string({ error: QUESTION })
    .trim()
    .min(1, { error: QUESTION })
    .max(MAX_QUESTION_CHARS, { error: `the question is over ${MAX_QUESTION_CHARS} characters` }),
  model: z.unknown(),
  tools: z.array(z.string(), { error: 'tools must be a list of tool names' }).optional(),
  maxSteps: z
    .number({ error: MAX_STEPS })
    .int({ error: MAX_STEPS })
    .min(MAX_STEPS_RANGE.min, { error: MAX_STEPS })
    .max(MAX_STEPS_RANGE.max, { error: MAX_STEPS })
    .optional(),
  continueFrom: z.string({ error: 'continueFrom must be the id of an earlier run' }).optional(),
  instructions: z
    .string({ error: 'instructions must be text' })
    .max(MAX_INSTRUCTIONS_CHARS, { error: `the instructions are over ${MAX_INSTRUCTIONS_CHARS} characters` })
    .optional(),
  temperature: z
    .number({ error: TEMPERATURE })
    .min(TEMPERATURE_RANGE.min, { error: TEMPERATURE })
    .max(TEMPERATURE_RANGE.max, { error: TEMPERATURE })
    .optional(),
});

/** `POST /api/runs/:id/fork`: the step to fork from, and what the user wrote in its place. */
const FORK_BODY = z.object({
  step: z.number({ error: FORK_STEP }).int({ error: FORK_STEP }).min(1, { error: FORK_STEP }),
  turn: z
    .string({ error: FORK_TEXT('turn') })
    .max(MAX_FORK_TEXT_CHARS, { error: FORK_TEXT('turn') })
    .optional(),
  observation: z
    .string({ error: FORK_TEXT('observation') })
    .max(MAX_FORK_TEXT_CHARS, { error: FORK_TEXT('observation') })
    .optional(),
});

/** `POST /api/runs/:id/approvals/:requestId`. */
const APPROVAL_BODY = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('approve') }),
    z.object({ type: z.literal('reject'), reason: z.unknown().optional() }),
    z.object({
      type: z.literal('edit'),
      input: z.string({ error: EDIT }).max(MAX_EDIT_CHARS, { error: EDIT }),
    }),
  ],
  { error: 'type must be "approve", "reject" or "edit"' },
);

/** A `POST /api/runs` body, parsed: every field the client's own. */
export interface RunBody {
  /** Trimmed, 1 to {@link MAX_QUESTION_CHARS} characters. */
  question: string;
  /** Not checked here: the caller checks it is one of the offered model specs. */
  model: unknown;
  /** Tool names; absent for "every offered tool". */
  tools?: string[];
  /** A whole number in {@link MAX_STEPS_RANGE}; absent for its default. */
  maxSteps?: number;
  /** The run whose conversation this question continues. */
  continueFrom?: string;
  /** Added to the system prompt (the run's `instructions`); blank is none. */
  instructions?: string;
  /** `modelSettings.temperature`, in {@link TEMPERATURE_RANGE}. */
  temperature?: number;
}

/** A `POST /api/runs/:id/fork` body, parsed. */
export interface ForkBody {
  /** The step (from 1) the fork replaces; the steps before it are replayed as recorded. */
  step: number;
  /** The model's turn at that step, as the user wrote it; absent keeps the recorded one. */
  turn?: string;
  /** The observation of that step (the user plays the tool, which does not run); absent runs the action. */
  observation?: string;
}

/**
 * Reads and parses a `POST /api/runs` body.
 *
 * @throws {HttpError} 400 saying what is wrong (415, 413 from {@link readJsonObject}).
 */
export async function readRunBody(request: IncomingMessage): Promise<RunBody> {
  return parseOwn(RUN_BODY, await readJsonObject(request)) as RunBody;
}

/**
 * Reads and parses a `POST /api/runs/:id/fork` body.
 *
 * @throws {HttpError} 400 saying what is wrong (415, 413 from {@link readJsonObject}).
 */
export async function readForkBody(request: IncomingMessage): Promise<ForkBody> {
  return parseOwn(FORK_BODY, await readJsonObject(request)) as ForkBody;
}

/**
 * Reads and parses an approval's body into the decision: `{ type: 'approve' }`, `{ type: 'reject',
 * reason? }` (a reason that is not text, or is blank, is left out; a long one is cut to 500 characters) or
 * `{ type: 'edit', input }`.
 *
 * @throws {HttpError} 400 saying what is wrong (415, 413 from {@link readJsonObject}).
 */
export async function readDecision(request: IncomingMessage): Promise<ApprovalDecision> {
  const body = parseOwn(APPROVAL_BODY, await readJsonObject(request)) as z.infer<typeof APPROVAL_BODY>;
  if (body.type !== 'reject') return body;
  const reason = typeof body.reason === 'string' ? body.reason.trim().slice(0, MAX_REASON_CHARS) : '';
  return reason ? { type: 'reject', reason } : { type: 'reject' };
}

/**
 * `value` parsed by `schema` as own data (see the module comment), the result copied without prototypes.
 *
 * @throws {HttpError} 400 with the first problem's message.
 */
function parseOwn(schema: z.ZodType, value: unknown): unknown {
  let parsed: ReturnType<typeof schema.safeParse>;
  try {
    parsed = schema.safeParse(ownData(value));
  } catch (error) {
    if (error instanceof OwnDataError) throw new HttpError(400, `the body cannot be read: ${error.message}`);
    throw error;
  }
  if (!parsed.success) throw new HttpError(400, parsed.error.issues[0]?.message ?? 'the body is not valid');
  return ownData(parsed.data);
}
