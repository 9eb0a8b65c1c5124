/**
 * An MCP server's tool metadata is data from outside: the text that reaches the prompt (descriptions, input
 * hints, names) and the native tool definitions (the schema's descriptions and titles) is put on one line,
 * without control characters, and capped, so a server can neither write lines that pose as protocol steps
 * nor send a 600 kB description with every request. The system prompt neutralises every tool's description
 * again when it renders it (see `renderSystemPrompt`).
 *
 * @module
 */

/** Longest tool description kept from an MCP server, in characters (UTF-16 code units); more is cut with a marker. */
export const MCP_MAX_DESCRIPTION_CHARS = 1000;

/** Longest input hint kept (the name of a tool's one string property, say), in characters. */
export const MCP_MAX_HINT_CHARS = 160;

/** Longest tool name made from an MCP tool's name (before a `_2` that keeps it unique), in characters. */
export const MCP_MAX_NAME_CHARS = 64;

/** Deepest level of an input schema whose descriptions and titles are cleaned; deeper ones are left as sent. */
const MAX_SCHEMA_DEPTH = 64;

/**
 * White space, control characters (C0, DEL, C1: NEL U+0085 among them) and the Unicode line and paragraph
 * separators, in runs: each run becomes one space.
 */
const BREAKS = /[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+/gu;

/** `text` on one line: every run of white space, line terminators and control characters one space, trimmed. */
export function oneLine(text: string): string {
  return text.replace(BREAKS, ' ').trim();
}

/**
 * `text` cut to `maxChars` characters (never between the halves of a surrogate pair) and marked, as
 * `… [<what> cut to K of N characters]`, when it is longer; otherwise `text` itself. `total` is the length
 * of the text it was made from (the original, before white space was collapsed) and defaults to its own.
 */
export function capText(text: string, maxChars: number, what = 'description', total = text.length): string {
  if (text.length <= maxChars && total <= text.length) return text;
  let end = Math.min(maxChars, text.length);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end).trimEnd()} … [${what} cut to ${end} of ${total} characters]`;
}

/**
 * The description an MCP tool is listed with: its description, else its title (else `The MCP tool <name>.`),
 * on one line and capped at `MCP_MAX_DESCRIPTION_CHARS` with a marker.
 */
export function mcpDescription(tool: {
  name: string;
  description?: string | undefined;
  title?: string | undefined;
  annotations?: { title?: string | undefined } | undefined;
}): string {
  const text = tool.description ?? tool.annotations?.title ?? tool.title ?? '';
  // Only a bounded head is read, so a 600 kB description costs what a capped one does.
  const head = text.slice(0, MCP_MAX_DESCRIPTION_CHARS * 2);
  const line = oneLine(head);
  if (line === '') return `The MCP tool ${capText(oneLine(tool.name), MCP_MAX_NAME_CHARS, 'name')}.`;
  const total = head.length < text.length ? text.length : line.length;
  return capText(line, MCP_MAX_DESCRIPTION_CHARS, 'description', total);
}

/**
 * A copy of `schema` whose `description` and `title` strings, at any depth up to 64 levels, are on one line
 * and capped at `MCP_MAX_DESCRIPTION_CHARS`; everything else (property names, types, defaults) is
 * kept as sent.
 */
export function cleanSchemaText<T>(schema: T, depth = 0): T {
  if (depth > MAX_SCHEMA_DEPTH || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((item) => cleanSchemaText(item, depth + 1)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      (key === 'description' || key === 'title') && typeof value === 'string'
        ? capText(oneLine(value), MCP_MAX_DESCRIPTION_CHARS)
        : cleanSchemaText(value, depth + 1);
  }
  return copy as T;
}
