/**
 * Tools from an MCP server (Model Context Protocol): connect once, list the server's tools, and call them
 * as ordinary taoloop tools, `Action: add[{"a": 2, "b": 3}]`.
 *
 * Sources: MCP specification, "Tools" (listing, calling, `isError`, content types, annotations),
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools; the official TypeScript SDK,
 * `@modelcontextprotocol/sdk`, https://github.com/modelcontextprotocol/typescript-sdk.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { errorMessage } from '../util/own.js';
import { connectMcp, McpConnectionError, type McpServerOptions } from './mcp-connect.js';
import {
  type JsonSchemaObject,
  jsonInputHint,
  jsonSchemaAdapter,
  singleStringProperty,
} from './mcp-schema.js';
import {
  capText,
  cleanSchemaText,
  MCP_MAX_HINT_CHARS,
  MCP_MAX_NAME_CHARS,
  mcpDescription,
  oneLine,
} from './mcp-text.js';
import type { Tool } from './types.js';
import { describeIssues } from './validate.js';

export {
  McpConnectionError,
  type McpHttpServer,
  type McpServerOptions,
  type McpStdioServer,
} from './mcp-connect.js';
export { MCP_MAX_DESCRIPTION_CHARS } from './mcp-text.js';

/** Options for {@link mcpTools} beyond the server itself. */
export interface McpToolsOptions {
  /** Put before every tool name with `_`, e.g. `'fs'` turns `read_file` into `fs_read_file`. @default none */
  prefix?: string;
  /**
   * Milliseconds allowed for connecting and for each tool call (it becomes each tool's `timeoutMs`).
   * @default 30000 for connecting; the router's default (30000) for calls
   */
  timeoutMs?: number;
}

/** A taoloop {@link Tool} made from an MCP tool. */
export interface McpTool extends Tool {
  /**
   * The tool's input schema as the server sent it (a JSON Schema object), less any `$schema` keyword, with
   * its `description` and `title` texts on one line and capped like the tool's description.
   */
  inputJsonSchema: Record<string, unknown>;
  /** The tool's name on the server (before sanitising and prefixing). */
  mcpName: string;
}

/** The tools of one connected MCP server. Call {@link McpToolSet.close} when done. */
export interface McpToolSet {
  /** The server's tools, in the server's order. A snapshot: later changes on the server are not seen. */
  tools: McpTool[];
  /** Disconnects; for a stdio server, ends the child process (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

/** The tool as the SDK lists it (`tools/list`). */
type ListedTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Inputs are JSON objects, longer than text inputs. */
const MCP_MAX_INPUT_CHARS = 2000;
/**
 * The SDK's own per-request timeout. The router's deadline (an aborted signal, which the SDK turns into
 * `notifications/cancelled`) is what normally ends a slow call; this only bounds direct callers.
 */
const SDK_CALL_TIMEOUT_MS = 60 * 60 * 1000;
/** Pages of `tools/list` read at most, in case a server keeps returning a cursor. */
const MAX_LIST_PAGES = 100;

/**
 * Connects to an MCP server and returns its tools as taoloop tools. The SDK is imported only when this
 * runs.
 *
 * Each MCP tool becomes a {@link McpTool}:
 * - `name`: the MCP name with anything but letters, digits, `_` and `-` replaced by `_`, after `prefix`
 *   and `_` when given, cut to 64 characters; a name that would clash gets `_2`, `_3`, ...
 * - `description`: the server's description (or title) on one line, without control characters, cut to
 *   `MCP_MAX_DESCRIPTION_CHARS` (1,000) characters with a marker (`… [description cut to 1000 of
 *   600000 characters]`): it is sent with every request, and the server's text is data, never
 *   instructions (the system prompt also quotes any line of a description that reads as a step). The
 *   input hint is one line too (at most 160 characters), and so are the descriptions and titles inside
 *   `inputJsonSchema`, which native tool calling sends.
 * - input: JSON in the brackets, validated against the tool's JSON Schema by the router (types,
 *   required and known properties: see `mcp-schema.ts`). When the schema has exactly one property and it
 *   is a string, plain text is accepted too and becomes that property (`save_note[buy milk]` sends
 *   `{"text": "buy milk"}`); a JSON object in the brackets is still read as the arguments. A tool whose
 *   schema lists no properties is written `name[]`. These two kinds are text tools to the router (it
 *   would refuse text that is not JSON) and validate in `run` instead, so a problem with a JSON object
 *   written for them is reported after approval rather than before.
 * - `effects`: `'read'` when the server marks the tool `annotations.readOnlyHint: true`, otherwise
 *   `'external'`, so the loop asks for approval. The MCP specification calls annotations hints that
 *   clients should not trust from untrusted servers: connect only to servers you trust.
 * - `run` calls `tools/call`. Text content parts are joined with newlines; other parts are described
 *   (`[image: image/png]`, `[audio: audio/wav]`, `[resource link: uri]`); a result with no content but
 *   structured content gives that content as JSON. A result with `isError: true` throws its text, which
 *   the router reports as `Error: <text>`.
 *
 * @throws {McpConnectionError} when the server cannot be started or reached, fails the initialisation
 * handshake or its tool list cannot be read; the message names the command or URL and says why.
 * @example
 * ```ts
 * const mcp = await mcpTools({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
 * try {
 *   const result = await runAgent({ model, question, tools: [calculator, ...mcp.tools], approve });
 * } finally {
 *   await mcp.close();
 * }
 * ```
 */
export async function mcpTools(server: McpServerOptions, more: McpToolsOptions = {}): Promise<McpToolSet> {
  const connection = await connectMcp(server, more.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  let listed: ListedTool[];
  try {
    listed = await listAllTools(connection.client, more.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw new McpConnectionError(
      `Could not list the tools of the MCP server ${connection.label}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  const taken = new Set<string>();
  const tools = listed.map((tool) =>
    toTool(tool, uniqueName(tool.name, more.prefix, taken), connection.client, more.timeoutMs),
  );
  return { tools, close: connection.close };
}

async function listAllTools(client: Client, timeoutMs: number): Promise<ListedTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout: timeoutMs,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

function toTool(listed: ListedTool, name: string, client: Client, timeoutMs: number | undefined): McpTool {
  const schema = listed.inputSchema as JsonSchemaObject;
  const adapter = jsonSchemaAdapter(schema);
  const textProperty = singleStringProperty(schema);
  const call = (args: Record<string, unknown>, signal: AbortSignal) =>
    callMcpTool(client, listed.name, args, signal);
  const base = {
    name,
    mcpName: listed.name,
    description: mcpDescription(listed),
    effects: listed.annotations?.readOnlyHint === true ? ('read' as const) : ('external' as const),
    maxInputChars: MCP_MAX_INPUT_CHARS,
    inputJsonSchema: cleanSchemaText(withoutDialect(schema)),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
  if (textProperty === undefined && !takesNoInput(schema)) {
    return {
      ...base,
      inputSchema: adapter,
      inputHint: capText(oneLine(jsonInputHint(schema)), MCP_MAX_HINT_CHARS, 'hint'),
      run: (input: Record<string, unknown>, { signal }) => call(input, signal),
    };
  }
  const read = (input: string) => argumentsFromText(input, textProperty, adapter, name);
  return {
    ...base,
    inputHint: capText(oneLine(textProperty ?? ''), MCP_MAX_HINT_CHARS, 'hint'),
    run: (input: string, { signal }) => call(read(input), signal),
  };
}

/** The schema without `$schema`, as `defineTool` gives it: some providers refuse the keyword. */
function withoutDialect(schema: JsonSchemaObject): JsonSchemaObject {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** True when the schema lists no properties: the model writes `name[]`. */
function takesNoInput(schema: JsonSchemaObject): boolean {
  const properties = schema.properties;
  return typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0;
}

/**
 * The arguments for a text tool: a JSON object as written (validated); otherwise the text as the one
 * string property, or `{}` for blank input to a tool without properties.
 *
 * @throws {Error} for an invalid JSON object, or text given to a tool without properties.
 */
function argumentsFromText(
  input: string,
  property: string | undefined,
  schema: StandardSchemaV1<unknown, Record<string, unknown>>,
  toolName: string,
): Record<string, unknown> {
  const object = parseObject(input);
  if (object) {
    const result = schema['~standard'].validate(object);
    if (result instanceof Promise) throw new Error(`${toolName} has an asynchronous schema.`);
    if (result.issues) throw new Error(`invalid input for ${toolName}: ${describeIssues(result.issues)}`);
    return result.value;
  }
  if (property !== undefined) return { [property]: input };
  if (input.trim() === '') return {};
  throw new Error(`${toolName} takes no input. Write ${toolName}[]`);
}

/** The JSON object written in the brackets, or `undefined` when the text is not one. */
function parseObject(input: string): Record<string, unknown> | undefined {
  if (!input.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(input);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function callMcpTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<string> {
  if (!client.transport) throw new Error(`the connection to the MCP server is closed; ${name} cannot run.`);
  const result = await client.callTool({ name, arguments: args }, undefined, {
    signal,
    timeout: SDK_CALL_TIMEOUT_MS,
  });
  const text = resultText(result);
  if (result.isError === true) throw new Error(text || `the MCP tool ${name} reported an error`);
  return text || '(no output)';
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;

function resultText(result: CallResult): string {
  const content = Array.isArray(result.content) ? (result.content as ContentPart[]) : [];
  if (content.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return content.map(describePart).join('\n');
}

/** A content part of a `tools/call` result, loosely: servers may send types newer than this code. */
interface ContentPart {
  type: string;
  text?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  resource?: { uri?: unknown; text?: unknown; mimeType?: unknown };
}

function describePart(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return String(part.text ?? '');
    case 'image':
    case 'audio':
      return `[${part.type}: ${String(part.mimeType ?? 'unknown type')}]`;
    case 'resource_link':
      return `[resource link: ${String(part.uri ?? '')}]`;
    case 'resource': {
      const resource = part.resource ?? {};
      const head = `[resource: ${String(resource.uri ?? '')}]`;
      return typeof resource.text === 'string'
        ? `${head}\n${resource.text}`
        : `${head.slice(0, -1)}, ${String(resource.mimeType ?? 'binary')}]`;
    }
    default:
      return `[${part.type} content]`;
  }
}

/** A valid router name for an MCP tool, unique among `taken` (which it joins). */
function uniqueName(mcpName: string, prefix: string | undefined, taken: Set<string>): string {
  let name = (prefix ? `${prefix}_${mcpName}` : mcpName)
    .slice(0, MCP_MAX_NAME_CHARS * 2)
    .replace(/[^\p{L}\p{N}_-]/gu, '_');
  if (!/^\p{L}/u.test(name)) name = `mcp_${name}`;
  name = [...name].slice(0, MCP_MAX_NAME_CHARS).join('');
  let unique = name;
  for (let n = 2; taken.has(unique); n += 1) unique = `${name}_${n}`;
  taken.add(unique);
  return unique;
}
