/**
 * Connecting to an MCP server with the official SDK, loaded lazily so that importing taoloop never loads it:
 * stdio (a child process) for a command, Streamable HTTP with a fallback to the older HTTP+SSE transport
 * for a URL.
 *
 * Sources: MCP specification, "Transports", https://modelcontextprotocol.io/specification/2025-06-18/basic/transports;
 * SDK README, "Backwards compatibility" (try Streamable HTTP, then SSE),
 * https://github.com/modelcontextprotocol/typescript-sdk.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorMessage } from '../util/own.js';
import { importAtRunTime } from '../util/runtime-import.js';

/** Start an MCP server as a child process and talk to it over stdin/stdout. */
export interface McpStdioServer {
  /** The executable, e.g. `npx` or `node`. Run without a shell. */
  command: string;
  /** @default [] */
  args?: string[];
  /**
   * Variables for the child. It does not inherit this process's whole environment: it gets only `HOME`,
   * `LOGNAME`, `PATH`, `SHELL`, `TERM` and `USER` (the SDK's safe list) plus these.
   */
  env?: Record<string, string>;
  /** @default this process's working directory */
  cwd?: string;
}

/** Talk to a running MCP server over HTTP. */
export interface McpHttpServer {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp` (Streamable HTTP) or an older `/sse` endpoint. */
  url: string;
  /** Sent with every request, e.g. `{ Authorization: 'Bearer ...' }`. */
  headers?: Record<string, string>;
}

/** Which MCP server to connect to. */
export type McpServerOptions = McpStdioServer | McpHttpServer;

/** Thrown when an MCP server cannot be started, reached or initialised, or its tool list cannot be read. */
export class McpConnectionError extends Error {
  override name = 'McpConnectionError';
}

/** An initialised client and how to let go of it. */
export interface McpConnection {
  client: Client;
  /** The server in words, for error messages: the command line or the URL. */
  label: string;
  /** Closes the client and its transport; for stdio, ends the child process. Safe to call twice. */
  close(): Promise<void>;
  /** The end of the server's stderr (stdio only), to explain failures. */
  stderrTail(): string;
}

/** Bytes of the child's stderr kept for error messages. */
const STDERR_TAIL_CHARS = 2000;

/**
 * Starts or reaches the server and runs the MCP initialisation handshake, within `timeoutMs`.
 *
 * @throws {McpConnectionError} saying which command or URL failed and why (with the end of the server's
 * stderr, for stdio).
 */
export async function connectMcp(server: McpServerOptions, timeoutMs: number): Promise<McpConnection> {
  const { Client } = await importAtRunTime<typeof import('@modelcontextprotocol/sdk/client/index.js')>(
    '@modelcontextprotocol/sdk/client/index.js',
  ).catch((error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new McpConnectionError(
      'MCP needs the @modelcontextprotocol/sdk package, which is not installed: run `npm install @modelcontextprotocol/sdk@1.32.2`.',
    );
  });
  const newClient = () => new Client({ name: 'taoloop', version: '0' });
  return 'url' in server
    ? connectHttp(server, newClient, timeoutMs)
    : connectStdio(server, newClient(), timeoutMs);
}

async function connectStdio(
  server: McpStdioServer,
  client: Client,
  timeoutMs: number,
): Promise<McpConnection> {
  const { StdioClientTransport } = await importAtRunTime<
    typeof import('@modelcontextprotocol/sdk/client/stdio.js')
  >('@modelcontextprotocol/sdk/client/stdio.js');
  const label = `"${[server.command, ...(server.args ?? [])].join(' ')}"`;
  const transport = new StdioClientTransport({
    command: server.command,
    ...(server.args && { args: server.args }),
    ...(server.env && { env: server.env }),
    ...(server.cwd !== undefined && { cwd: server.cwd }),
    stderr: 'pipe',
  });
  // Piped stderr must be read, or a chatty server blocks once the pipe is full.
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const stderrTail = () => stderr.trim();
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    const tail = stderrTail();
    const said = tail ? ` The server's stderr ended with:\n${tail}` : '';
    const why = describeFailure(error, timeoutMs);
    throw new McpConnectionError(`Could not connect to the MCP server ${label}: ${why}.${said}`, {
      cause: error,
    });
  }
  return { client, label, close: once(() => client.close()), stderrTail };
}

async function connectHttp(
  server: McpHttpServer,
  newClient: () => Client,
  timeoutMs: number,
): Promise<McpConnection> {
  const label = `at ${server.url}`;
  let url: URL;
  try {
    url = new URL(server.url);
  } catch (error) {
    throw new McpConnectionError(`Could not connect to the MCP server ${label}: not a valid URL.`, {
      cause: error,
    });
  }
  const requestInit: RequestInit = server.headers ? { headers: server.headers } : {};
  const { StreamableHTTPClientTransport } = await importAtRunTime<
    typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  >('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const streamable = new StreamableHTTPClientTransport(url, { requestInit });
  const first = await tryConnect(newClient(), streamable, timeoutMs);
  if (first.ok) {
    const close = async () => {
      await streamable.terminateSession().catch(() => undefined);
      await first.client.close();
    };
    return { client: first.client, label, close: once(close), stderrTail: () => '' };
  }
  const { SSEClientTransport } = await importAtRunTime<
    typeof import('@modelcontextprotocol/sdk/client/sse.js')
  >('@modelcontextprotocol/sdk/client/sse.js');
  const second = await tryConnect(newClient(), new SSEClientTransport(url, { requestInit }), timeoutMs);
  if (second.ok) {
    return { client: second.client, label, close: once(() => second.client.close()), stderrTail: () => '' };
  }
  throw new McpConnectionError(
    `Could not connect to the MCP server ${label}: ${describeFailure(first.error, timeoutMs)} (Streamable HTTP); ${describeFailure(second.error, timeoutMs)} (HTTP+SSE).`,
    { cause: first.error },
  );
}

type Attempt = { ok: true; client: Client } | { ok: false; error: unknown };

async function tryConnect(client: Client, transport: Transport, timeoutMs: number): Promise<Attempt> {
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return { ok: true, client };
  } catch (error) {
    await client.close().catch(() => undefined);
    return { ok: false, error };
  }
}

/** JSON-RPC error code the SDK uses for a request that timed out. */
const REQUEST_TIMEOUT_CODE = -32001;

/** The error's message, with its cause (`fetch failed` says little) and the time waited for a timeout. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  if ((error as { code?: unknown } | undefined)?.code === REQUEST_TIMEOUT_CODE) {
    return `no answer within ${timeoutMs} ms`;
  }
  const message = errorMessage(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return message;
  const code = (cause as { code?: unknown }).code;
  const detail = typeof code === 'string' ? code : cause.message;
  return message.includes(detail) ? message : `${message} (${detail})`;
}

/** Runs `fn` the first time and returns the same promise afterwards. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= fn();
    return running;
  };
}
