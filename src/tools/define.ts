/**
 * `defineTool`: the public way to make a tool, with text or schema input, declared effects and limits.
 *
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { Tool, ToolContext, ToolEffects, ToolInputSchema } from './types.js';

/** What {@link defineTool} takes. `input` decides what `run` receives. */
export interface ToolDefinition<I extends 'text' | ToolInputSchema> {
  /** Letters, digits, `_` and `-`, starting with a letter; unique within a run. */
  name: string;
  /** One line for the model: what the tool does and what input it takes. */
  description: string;
  /**
   * `'text'`: `run` gets the raw text inside the brackets. A schema (zod, or any Standard Schema): the
   * model writes JSON in the brackets, the router parses and validates it and `run` gets the parsed value;
   * invalid JSON or a schema failure goes back to the model as an observation saying what is wrong.
   * In native tool-calling mode the same schema becomes the function's JSON schema.
   */
  input: I;
  /**
   * What running the tool can change: `'read'` looks things up; `'write'` changes local state;
   * `'external'` sends, pays, deletes or talks to the world. Anything but `'read'` needs approval.
   * @default 'read'
   */
  effects?: ToolEffects;
  /** Ask for approval even for a read tool (`true`), or never (`false`). @default effects !== 'read' */
  needsApproval?: boolean;
  /** @default 30000 */
  timeoutMs?: number;
  /** @default 200 for text input, 2000 for schema input */
  maxInputChars?: number;
  /** @default 4000 */
  maxOutputChars?: number;
  /** How to write the input in the prompt, e.g. `expression`. @default 'input', or a JSON hint for schemas */
  inputHint?: string;
  /** Runs the tool. Return a string, or any value (turned into JSON). Throw to report a failure. */
  run(
    input: I extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<I> : string,
    context: ToolContext,
  ): unknown | Promise<unknown>;
}

/** Default input limit for schema tools, whose JSON inputs are longer than text ones. */
const SCHEMA_MAX_INPUT_CHARS = 2000;

/**
 * Defines a tool. The returned object is a plain {@link Tool}; validation, limits, timeouts and approval
 * are enforced by the router.
 *
 * @example
 * ```ts
 * const sendEmail = defineTool({
 *   name: 'send_email',
 *   description: 'Sends an email.',
 *   input: z.object({ to: z.string().email(), subject: z.string(), body: z.string() }),
 *   effects: 'external',
 *   run: async ({ to, subject }) => `sent "${subject}" to ${to}`,
 * });
 * ```
 */
export function defineTool<I extends 'text' | ToolInputSchema>(definition: ToolDefinition<I>): Tool {
  const { input, run, ...rest } = definition;
  const schema = input === 'text' ? undefined : (input as ToolInputSchema);
  const jsonSchema = schema ? schemaJsonSchema(schema) : undefined;
  return {
    ...rest,
    ...(schema && { inputSchema: schema }),
    ...(jsonSchema && { inputJsonSchema: jsonSchema }),
    ...(schema && rest.maxInputChars === undefined && { maxInputChars: SCHEMA_MAX_INPUT_CHARS }),
    ...(schema && rest.inputHint === undefined && { inputHint: jsonInputHint(jsonSchema) }),
    run: run as Tool['run'],
  };
}

/**
 * The JSON Schema (draft 2020-12) of a schema that offers one through Standard JSON Schema
 * (`~standard.jsonSchema`: zod 4 does, the same as its `toJSONSchema`), for native tool calling and the
 * input hint; `undefined` when it offers none or cannot express this one. Importing zod is not needed.
 */
function schemaJsonSchema(schema: ToolInputSchema): Record<string, unknown> | undefined {
  const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (!converter) return undefined;
  try {
    const { $schema: _dialect, ...rest } = converter.output({ target: 'draft-2020-12' });
    return rest;
  } catch {
    return undefined;
  }
}

/**
 * The input form shown in the prompt for a schema tool: a JSON object with each property's type, e.g.
 * `{"to": string, "amountUsd": number}`, so the model knows what to write in the brackets.
 */
export function jsonInputHint(schema: Record<string, unknown> | undefined): string {
  const properties = schema?.properties;
  if (!properties || typeof properties !== 'object') return 'JSON input';
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(properties as Record<string, Record<string, unknown>>).map(
    ([name, property]) => {
      const type = Array.isArray(property.enum)
        ? property.enum.map((v) => JSON.stringify(v)).join(' | ')
        : typeof property.type === 'string'
          ? property.type
          : 'value';
      return `${JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${type}`;
    },
  );
  return `{${fields.join(', ')}}`;
}
