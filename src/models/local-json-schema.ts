/**
 * A typed answer's JSON Schema (what zod's `toJSONSchema` or any Standard Schema gives) rewritten into the
 * subset node-llama-cpp turns into a grammar (`GbnfJsonSchema`: https://node-llama-cpp.withcat.ai/guide/grammar#json-schema).
 * That subset reads some keywords differently from JSON Schema: `anyOf` is ignored (the value becomes
 * `null`), a schema without a type means `null`, a string `format` other than `date`, `time` and
 * `date-time` allows only `""`, and a `$ref` must point into `#/$defs/`. So the rewrite keeps what the
 * subset reads the same way and widens the rest (to any JSON value where nothing narrower fits): the
 * grammar may allow values the schema refuses (a number out of range, a string not matching its pattern),
 * which the loop's validation then sends back to the model; it never forbids a valid one but for optional
 * properties, which the grammar always writes. Pure: loads nothing.
 *
 * @module
 */

type JsonObject = Record<string, unknown>;

/** Any JSON value, in the subset. */
const ANY_JSON: JsonObject = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'array' },
    { type: 'object', additionalProperties: true },
  ],
};

/** The string formats the subset has a grammar for. */
const FORMATS = new Set(['date', 'time', 'date-time']);

/** The definition the root schema becomes when it refers to itself (`$ref: '#'`). */
const ROOT_DEF = 'taoloop-root';

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `schema` in node-llama-cpp's JSON Schema subset, with every definition (`$defs`, `definitions`, at any
 * depth) gathered at the root.
 */
export function toLlamaJsonSchema(schema: unknown): JsonObject {
  const defs: JsonObject = {};
  let rootReferenced = false;
  const convert = (node: unknown): JsonObject => {
    if (!isObject(node)) return ANY_JSON;
    for (const key of ['$defs', 'definitions']) {
      const found = node[key];
      if (isObject(found)) for (const [name, def] of Object.entries(found)) defs[name] = convert(def);
    }
    if (typeof node.$ref === 'string') {
      if (node.$ref === '#') {
        rootReferenced = true;
        return { $ref: `#/$defs/${ROOT_DEF}` };
      }
      const name = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(node.$ref)?.[1];
      return name === undefined ? ANY_JSON : { $ref: `#/$defs/${name}` };
    }
    if ('const' in node) return { const: node.const };
    if (Array.isArray(node.enum)) return { enum: node.enum };
    const alternatives = node.anyOf ?? node.oneOf;
    if (Array.isArray(alternatives)) return { oneOf: alternatives.map(convert) };
    if (Array.isArray(node.allOf)) return node.allOf.length === 1 ? convert(node.allOf[0]) : ANY_JSON;
    return convertTyped(node, convert);
  };
  const root = convert(schema);
  if (rootReferenced) defs[ROOT_DEF] = root;
  if (Object.keys(defs).length === 0) return root;
  return rootReferenced ? { $defs: defs, $ref: `#/$defs/${ROOT_DEF}` } : { ...root, $defs: defs };
}

/** A schema by its `type` (several types become alternatives; no type is any value, or an object). */
function convertTyped(node: JsonObject, convert: (node: unknown) => JsonObject): JsonObject {
  const type = node.type ?? (isObject(node.properties) ? 'object' : undefined);
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    return types.length === 1
      ? convertTyped({ ...node, type: types[0] }, convert)
      : {
          oneOf: types.map((t) => convertTyped({ ...node, type: t }, convert)),
        };
  }
  switch (type) {
    case 'object':
      return convertObject(node, convert);
    case 'array':
      return convertArray(node, convert);
    case 'string': {
      const format = typeof node.format === 'string' && FORMATS.has(node.format) ? node.format : undefined;
      if (format) return { type, format };
      return { type, ...pick(node, ['minLength', 'maxLength']) };
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type };
    default:
      return ANY_JSON;
  }
}

function convertObject(node: JsonObject, convert: (node: unknown) => JsonObject): JsonObject {
  const properties = isObject(node.properties) ? node.properties : {};
  const converted: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) converted[name] = convert(property);
  const extra = node.additionalProperties;
  // Without listed properties an object that allows others is a map; with them, writing only those is valid.
  const additionalProperties =
    extra === false
      ? undefined
      : isObject(extra) && Object.keys(extra).length > 0
        ? convert(extra)
        : Object.keys(converted).length === 0
          ? true
          : undefined;
  return {
    type: 'object',
    properties: converted,
    ...(additionalProperties !== undefined && { additionalProperties }),
    ...pick(node, ['minProperties', 'maxProperties']),
  };
}

function convertArray(node: JsonObject, convert: (node: unknown) => JsonObject): JsonObject {
  // Draft 2019 and before wrote a tuple as `items: [...]`, the rest as `additionalItems`.
  const tuple = Array.isArray(node.prefixItems)
    ? node.prefixItems
    : Array.isArray(node.items)
      ? node.items
      : [];
  const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
  const maxItems = rest === false ? tuple.length : node.maxItems;
  return {
    type: 'array',
    ...(tuple.length > 0 && { prefixItems: tuple.map(convert) }),
    ...(rest !== undefined && rest !== false && { items: convert(rest) }),
    ...pick(node, ['minItems']),
    ...(typeof maxItems === 'number' && { maxItems }),
  };
}

/** The keys of `node` whose values are whole numbers. */
function pick(node: JsonObject, keys: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const key of keys) if (Number.isInteger(node[key])) picked[key] = node[key];
  return picked;
}
