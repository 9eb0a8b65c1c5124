/**
 * The built-in `read_file` tool: reads one text file under a root folder.
 *
 * @module
 */

import path from 'node:path';
import { ToolConfigError } from './router.js';
import {
  checkSecretName,
  openRegularFile,
  PathRefusedError,
  resolveRoot,
  resolveSafePath,
} from './safe-path.js';
import type { Tool, ToolContext } from './types.js';

/** Extensions `read_file` reads unless told otherwise (compared case-insensitively). */
export const DEFAULT_READ_EXTENSIONS: readonly string[] = [
  '.md',
  '.txt',
  '.ts',
  '.js',
  '.json',
  '.py',
  '.toml',
  '.cfg',
  '.yaml',
  '.yml',
];

/** Default for {@link ReadFileToolOptions.maxOutputChars}. */
export const DEFAULT_READ_MAX_OUTPUT_CHARS = 20_000;

/** Bytes checked for a NUL byte to call a file binary. */
const BINARY_SNIFF_BYTES = 8192;

/** The tool createReadFileTool makes: a plain {@link Tool} whose `run` takes the path text and resolves to the observation. */
export interface ReadFileTool extends Tool {
  run(input: string, context: ToolContext): Promise<string>;
}

/** Options for {@link createReadFileTool}. */
export interface ReadFileToolOptions {
  /** Folder the model's paths are relative to; must exist. Resolved (symlinks too) once, at creation. */
  root: string;
  /** Extensions that may be read, with the dot, any case. @default DEFAULT_READ_EXTENSIONS */
  extensions?: readonly string[];
  /** Most characters returned; longer files end with `\n[... truncated: N more characters]`. @default 20000 */
  maxOutputChars?: number;
  /** Allow paths with segments starting with `.` (`.github/ci.yml`). @default false */
  allowHidden?: boolean;
  /**
   * File name patterns (`*` is the only wildcard, case-insensitive) read even though they look like
   * secrets (see `looksLikeSecretName`), e.g. `['secrets.md']`. @default [] (every secret-looking name is refused)
   */
  allowNames?: readonly string[];
}

/**
 * Creates `read_file`: the model writes `read_file[relative/path]` and sees the file's text.
 *
 * Every path goes through `resolveSafePath` (no absolute paths, `~`, URLs, backslashes, encoded
 * separators, hidden segments or control characters; `..` and symlinks only while they stay inside the
 * root) and `openRegularFile` (regular files only; the open descriptor's real path must be the
 * checked path, so a folder swapped for a symlink mid-read is refused). Only configured extensions are
 * read, and names that look like secrets (see `looksLikeSecretName`: `id_rsa.txt`, `clientSecret.json`,
 * `*.pem`, `*.key`, `*.env.*`, `dbCredentials.json`, `passwords.txt`, `myapikey.txt`) are refused unless
 * `allowNames` matches them. At most `maxOutputChars * 4` bytes are read, so a huge file costs
 * little; files with a NUL byte in the first 8 KB or invalid UTF-8 are refused as binary. Errors are
 * thrown with messages that name the path as given and never an absolute host path.
 *
 * @throws {ToolConfigError} when the root is missing, not a folder or `/`, or `maxOutputChars` is not a
 * positive integer.
 * @example
 * ```ts
 * const readFile = createReadFileTool({ root: 'docs' });
 * ```
 */
export function createReadFileTool(options: ReadFileToolOptions): ReadFileTool {
  const rootReal = resolveRoot(options?.root, 'read_file');
  const maxOutputChars = options.maxOutputChars ?? DEFAULT_READ_MAX_OUTPUT_CHARS;
  if (!Number.isInteger(maxOutputChars) || maxOutputChars < 1) {
    throw new ToolConfigError(`read_file maxOutputChars must be a positive integer, not ${maxOutputChars}.`);
  }
  const extensions = new Set((options.extensions ?? DEFAULT_READ_EXTENSIONS).map((e) => e.toLowerCase()));
  const listed = [...extensions].join(' ');
  const safeOptions = { allowHidden: options.allowHidden ?? false };
  const allowNames = options.allowNames ?? [];
  return {
    name: 'read_file',
    description: `Reads a text file (${listed}) under the project folder. Input: its path relative to that folder.`,
    inputHint: 'relative/path',
    effects: 'read',
    maxInputChars: 1024,
    // Room for the truncation marker, so a router cap never cuts the file a second time.
    maxOutputChars: maxOutputChars + 100,
    async run(input) {
      const trimmed = String(input).trim();
      const safe = await resolveSafePath(rootReal, trimmed, safeOptions);
      for (const name of [trimmed, safe.relativePath]) {
        const extension = path.posix.extname(name).toLowerCase();
        if (!extensions.has(extension)) {
          throw new PathRefusedError(
            `${JSON.stringify(name)} has extension "${extension || '(none)'}"; read_file reads only ${listed}.`,
          );
        }
      }
      for (const name of [trimmed, safe.relativePath]) checkSecretName(name, allowNames);
      return readTextFile(rootReal, safe.relativePath, safe.realPath, maxOutputChars);
    },
  };
}

/** Reads at most `maxChars` characters of a checked file, refusing binary content. */
async function readTextFile(
  rootReal: string,
  relativePath: string,
  realPath: string,
  maxChars: number,
): Promise<string> {
  const { handle, size } = await openRegularFile(rootReal, { realPath, relativePath });
  try {
    // UTF-8 is at most 4 bytes a character; one more byte tells "exactly at the limit" from "more".
    const limit = maxChars * 4 + 1;
    const buffer = Buffer.alloc(Math.min(Math.max(size, 0), limit) || Math.min(limit, 65536));
    let used = 0;
    while (used < buffer.length) {
      const { bytesRead } = await handle.read(buffer, used, buffer.length - used, used);
      if (bytesRead === 0) break;
      used += bytesRead;
    }
    const bytes = buffer.subarray(0, used);
    const whole = used < buffer.length || used === size;
    const shown = JSON.stringify(relativePath);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      throw new PathRefusedError(`${shown} looks binary (it has NUL bytes): read_file reads text only.`);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !whole });
    } catch {
      throw new PathRefusedError(`${shown} is not valid UTF-8 text: read_file reads text only.`);
    }
    return truncate(text, maxChars, used, whole ? 0 : Math.max(size - used, 0));
  } finally {
    await handle.close();
  }
}

/** Cuts `text` to `maxChars` (never inside a surrogate pair) and says how much was left out. */
function truncate(text: string, maxChars: number, readBytes: number, unreadBytes: number): string {
  const chars = [...text];
  if (chars.length <= maxChars && unreadBytes === 0) return text;
  const kept = chars.slice(0, maxChars).join('');
  const more = chars.length - Math.min(chars.length, maxChars);
  if (unreadBytes === 0) return `${kept}\n[... truncated: ${more} more characters]`;
  // The unread rest is estimated at the characters-per-byte of the part read: exact for ASCII.
  const estimate = more + Math.round((unreadBytes * chars.length) / Math.max(readBytes, 1));
  return `${kept}\n[... truncated: about ${estimate} more characters]`;
}
