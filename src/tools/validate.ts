/**
 * Validating schema input written by the model: JSON in the brackets, checked against the tool's
 * Standard Schema (zod 4 and others). Problems are worded for the model to fix.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Tool } from './types.js';

/** The validated input, or what was wrong with it. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; problem: string };

/** Parses and validates `rawInput` for `tool`; text tools get the raw text back. */
export function validateToolInput(tool: Tool, rawInput: string): ValidationResult {
  const schema = tool.inputSchema;
  if (!schema) return { ok: true, value: rawInput };
  let json: unknown;
  try {
    json = JSON.parse(rawInput);
  } catch (error) {
    const detail = error instanceof SyntaxError ? ` (${error.message})` : '';
    return {
      ok: false,
      problem: `${tool.name} takes JSON in the brackets, and this is not valid JSON${detail}. Example: ${tool.name}[{"key": "value"}]`,
    };
  }
  const result = schema['~standard'].validate(json);
  if (result instanceof Promise) {
    return { ok: false, problem: `${tool.name} has an asynchronous schema, which taoloop does not support.` };
  }
  if (result.issues)
    return { ok: false, problem: `invalid input for ${tool.name}: ${describeIssues(result.issues)}` };
  return { ok: true, value: result.value };
}

/** A schema's first five issues as one line: `path: message; ...` (for observations the model reads). */
export function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((p) => (typeof p === 'object' ? String(p.key) : String(p)))
        .join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
