/**
 * MCP tool input schemas (JSON Schema objects) as Standard Schemas, so the router can validate the JSON the
 * model writes before anything is sent to the server.
 *
 * The check covers the keywords that catch a model's usual mistakes: `type` (also as a list), `required`,
 * `properties`, `additionalProperties: false`, `items`, `enum` and `const`, recursively. Other keywords
 * (`anyOf`, `$ref`, `pattern`, `format`, `minimum`, ...) are not checked here; the server validates its own
 * input too, and its complaint comes back as an `Error: ...` observation.
 *
 * Sources: MCP specification, "Tools" (`inputSchema` is a JSON Schema object with `type: "object"`),
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools; Standard Schema and Standard JSON
 * Schema, https://standardschema.dev.
 *
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';

/** A JSON Schema object, as an MCP server sends it. */
export type JsonSchemaObject = Record<string, unknown>;

/** A Standard Schema that is also a Standard JSON Schema: it validates, and gives its JSON Schema back. */
export interface JsonSchemaAdapter {
  readonly '~standard': StandardSchemaV1.Props<unknown, Record<string, unknown>> &
    StandardJSONSchemaV1.Props<unknown, Record<string, unknown>>;
}

/**
 * Wraps a JSON Schema in a synchronous Standard Schema. Valid values come back unchanged; each problem is
 * an issue with the path to the offending value, e.g. `missing required property "b"` or `a: expected
 * number, got string`.
 *
 * `~standard.jsonSchema.input()` / `.output()` return a copy of the schema for the targets `draft-2020-12`
 * and `draft-07` (the schemas MCP servers send are plain enough to read as either) and throw for others.
 */
export function jsonSchemaAdapter(schema: JsonSchemaObject): JsonSchemaAdapter {
  const convert = (options: StandardJSONSchemaV1.Options): Record<string, unknown> => {
    if (options.target !== 'draft-2020-12' && options.target !== 'draft-07') {
      throw new Error(`JSON Schema target "${options.target}" is not supported.`);
    }
    return structuredClone(schema);
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'taoloop-json-schema',
      validate(value) {
        const issues: StandardSchemaV1.Issue[] = [];
        check(schema, value, [], issues);
        return issues.length > 0 ? { issues } : { value: value as Record<string, unknown> };
      },
      jsonSchema: { input: convert, output: convert },
    },
  };
}

/**
 * The name of the only property when the schema has exactly one property and it is a string (such a tool
 * can take plain text in the brackets); otherwise `undefined`.
 */
export function singleStringProperty(schema: JsonSchemaObject): string | undefined {
  const properties = asObject(schema.properties);
  if (!properties) return undefined;
  const names = Object.keys(properties);
  if (names.length !== 1) return undefined;
  const name = names[0]!;
  const types = typeList(asObject(properties[name])?.type);
  return types?.length === 1 && types[0] === 'string' ? name : undefined;
}

/**
 * A short input hint for the prompt: `{"a": number, "b"?: string}` (`?` marks optional properties), or
 * `JSON object` when the schema lists no properties or the hint would be longer than `maxChars`.
 */
export function jsonInputHint(schema: JsonSchemaObject, maxChars = 160): string {
  const properties = asObject(schema.properties);
  if (!properties || Object.keys(properties).length === 0) return 'JSON object';
  const required = new Set(stringList(schema.required));
  const parts = Object.entries(properties).map(([name, sub]) => {
    const types = typeList(asObject(sub)?.type) ?? ['value'];
    return `${JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${types.join(' | ')}`;
  });
  const hint = `{${parts.join(', ')}}`;
  return hint.length <= maxChars ? hint : 'JSON object';
}

/** Checks `value` against `schema`, pushing one issue per problem found. */
function check(schema: unknown, value: unknown, path: PropertyKey[], issues: StandardSchemaV1.Issue[]): void {
  const node = asObject(schema);
  if (!node) return; // `true`, or a schema we cannot read: anything goes.
  const types = typeList(node.type);
  if (types && !types.some((type) => hasType(value, type))) {
    issues.push({ message: `expected ${types.join(' or ')}, got ${jsonTypeOf(value)}`, path });
    return;
  }
  if (Array.isArray(node.enum) && !node.enum.some((option) => sameJson(option, value))) {
    issues.push({ message: `must be one of ${node.enum.map((o) => JSON.stringify(o)).join(', ')}`, path });
  }
  if (Object.hasOwn(node, 'const') && !sameJson(node.const, value)) {
    issues.push({ message: `must be ${JSON.stringify(node.const)}`, path });
  }
  const object = asObject(value);
  if (object) checkObject(node, object, path, issues);
  const items = asObject(node.items);
  if (Array.isArray(value) && items) {
    for (const [i, item] of value.entries()) check(items, item, [...path, i], issues);
  }
}

function checkObject(
  node: JsonSchemaObject,
  value: Record<string, unknown>,
  path: PropertyKey[],
  issues: StandardSchemaV1.Issue[],
): void {
  for (const name of stringList(node.required)) {
    if (!Object.hasOwn(value, name)) issues.push({ message: `missing required property "${name}"`, path });
  }
  const properties = asObject(node.properties) ?? {};
  for (const [name, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, name)) check(properties[name], item, [...path, name], issues);
    else if (node.additionalProperties === false) {
      const known = Object.keys(properties).map((k) => JSON.stringify(k));
      issues.push({ message: `unknown property "${name}" (known: ${known.join(', ') || 'none'})`, path });
    } else check(node.additionalProperties, item, [...path, name], issues);
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return asObject(value) !== undefined;
    default:
      return true; // an unknown type name: leave it to the server
  }
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Equality of JSON values (as parsed from the model's text: no cycles, no special objects). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function typeList(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string')) return type;
  return undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
