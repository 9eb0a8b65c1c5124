/**
 * Resolving a model-chosen relative path to a real file inside a root folder, for file tools.
 *
 * The model picks every input, so each one is hostile until proven otherwise. Every refusal is a
 * {@link PathRefusedError} whose message names the input as given (never an absolute host path) and says
 * what to write instead.
 *
 * @module
 */

import { constants, realpathSync, statSync } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolConfigError } from './router.js';

/** Longest relative path accepted, in characters. */
export const MAX_PATH_CHARS = 1024;

/** A path the model gave was refused; the message says why and what to do. */
export class PathRefusedError extends Error {
  override name = 'PathRefusedError';
}

/** Options for `resolveSafePath`. */
export interface SafePathOptions {
  /** Allow segments starting with `.` (`.github/x.yml`); refused by default because secrets live there. @default false */
  allowHidden?: boolean;
}

/** A path that passed every check. */
export interface SafePath {
  /** Absolute real path (symlinks resolved), inside the root. */
  realPath: string;
  /** `realPath` relative to the root, `/`-separated: safe to show the model. */
  relativePath: string;
}

/**
 * Resolves and realpaths a root folder once, at tool creation (synchronously: tools are created synchronously).
 *
 * @throws {ToolConfigError} when `root` is missing, not a folder, or the file system root `/`.
 */
export function resolveRoot(root: string | undefined, toolName: string): string {
  if (typeof root !== 'string' || root.trim() === '') {
    throw new ToolConfigError(`${toolName} needs a root folder: pass { root: 'path/to/project' }.`);
  }
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new ToolConfigError(`${toolName} root ${root} does not exist: pass an existing folder.`);
  }
  if (!statSync(real).isDirectory()) {
    throw new ToolConfigError(`${toolName} root ${root} is not a folder: pass a folder.`);
  }
  if (path.dirname(real) === real) {
    throw new ToolConfigError(`${toolName} root must not be the file system root: pass a project folder.`);
  }
  return real;
}

/**
 * Checks the text of a path without touching the disk and returns its `/`-separated segments.
 *
 * Refused: empty, longer than {@link MAX_PATH_CHARS}, control characters (NUL, newlines, Unicode line
 * separators and bidi overrides), absolute
 * paths, `~`, drive letters and URLs (`C:/`, `file://`), backslashes (a literal character on POSIX, but
 * only ever written to mean a Windows separator), URL-encoded `.` `/` `\` or NUL (`%2e`, `%2f`, `%5c`,
 * `%00`: never decoded, but refused so that no later layer that does decode can be tricked), and hidden
 * segments unless allowed. `..` is allowed only while it stays inside the root (checked by
 * `resolveSafePath`). Unicode look-alikes (`．．／`, `\u2024\u2024`) are ordinary name characters.
 *
 * @throws {PathRefusedError}
 */
export function checkPathText(input: string, options: SafePathOptions = {}): string[] {
  if (input === '') throw new PathRefusedError('The path is empty: give a file path relative to the root.');
  if (input.length > MAX_PATH_CHARS) {
    throw new PathRefusedError(`The path is ${input.length} characters; the limit is ${MAX_PATH_CHARS}.`);
  }
  const shown = JSON.stringify(input.slice(0, 80));
  // C0/C1 controls, Unicode line separators and bidi overrides: none belong in a file name the model
  // reads back, and some would disguise what an observation says.
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(input)) {
    throw new PathRefusedError(`The path ${shown} contains a control character (NUL or newline): remove it.`);
  }
  if (input.startsWith('/')) {
    throw new PathRefusedError(`Absolute paths are refused (${shown}): give a path relative to the root.`);
  }
  if (input.startsWith('~')) {
    throw new PathRefusedError(`"~" is not expanded (${shown}): give a path relative to the root.`);
  }
  if (input.includes('\\')) {
    throw new PathRefusedError(`Backslashes are refused (${shown}): separate folders with "/".`);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(input)) {
    throw new PathRefusedError(`URLs and drive letters are refused (${shown}): give a relative path.`);
  }
  if (/%(2e|2f|5c|00)/i.test(input)) {
    throw new PathRefusedError(`URL-encoded characters are not decoded (${shown}): write the path plainly.`);
  }
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) {
    throw new PathRefusedError(`${shown} is the root folder, not a file: give a file path.`);
  }
  if (!options.allowHidden && segments.some((s) => s.startsWith('.') && s !== '..')) {
    throw new PathRefusedError(`Hidden files and folders (starting with ".") are refused: ${shown}.`);
  }
  return segments;
}

/**
 * File names that look like secrets even with an allowed extension, tested case-insensitively against a
 * file's name (its last segment) with a space put at each lower-to-upper case change (`clientSecret.json`
 * is tested as `client Secret.json`), so camelCase words count as words:
 *
 * - SSH keys: `id_rsa`, `id_dsa`, `id_ecdsa`, `id_ed25519` anywhere in the name (`id_rsa.txt`, `backup_id_rsa.md`);
 * - key and certificate stores: `*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.jks`, `*.keystore`, `*.ppk`, `*.kdbx`;
 * - dotenv files: `.env`, `.env.*`, `*.env`, `*.env.*` (`prod.env.json`);
 * - `secrets`, `credential`, `password` or `passwd` anywhere in the name (`mySecrets.yaml`,
 *   `dbcredentials.json`, `passwords.txt`; `passwordless.md` too);
 * - a word ending in `secret`, followed by a non-letter or the end (`client_secret.json`, `clientSecret.json`,
 *   `topsecret.md`, `secretKey.txt`; not `secretary.md`);
 * - `api key`, `private key`, `secret key`, `access key`, `service account key` written joined or with
 *   `-`, `_`, `.` or spaces between, anywhere in the name (`myapikey.txt`, `aws_access_key.txt`,
 *   `serviceAccountKey.json`, `private-key.md`).
 *
 * Use {@link looksLikeSecretName} to apply them.
 */
export const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /id_(rsa|dsa|ecdsa|ed25519)/i,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|kdbx)$/i,
  /\.env(\.|$)/i,
  /secrets|credential|password|passwd/i,
  /secret([^a-z]|$)/i,
  /(api|private|secret|access|service[-_. ]*account)[-_. ]*key/i,
];

/**
 * True when the last segment of `relativePath` looks like a secret by {@link SECRET_NAME_PATTERNS}
 * (words split at lower-to-upper case changes). The one check shared by `read_file` and the search
 * tool's docs reader.
 */
export function looksLikeSecretName(relativePath: string): boolean {
  const name = path.posix.basename(relativePath);
  const spaced = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Z])([A-Z][a-z])/g, '$1 $2');
  return SECRET_NAME_PATTERNS.some((pattern) => pattern.test(name) || pattern.test(spaced));
}

/**
 * True when `relativePath`'s last segment matches one of `allowNames` (`*` matches any characters;
 * compared case-insensitively).
 */
export function nameAllowed(relativePath: string, allowNames: readonly string[]): boolean {
  const name = path.posix.basename(relativePath);
  return allowNames.some((glob) => globMatches(glob, name));
}

/**
 * Refuses a file name that looks like a secret (see {@link looksLikeSecretName}) unless it matches one
 * of `allowNames` (`*` matches any characters; compared case-insensitively).
 *
 * @throws {PathRefusedError}
 */
export function checkSecretName(relativePath: string, allowNames: readonly string[] = []): void {
  if (!looksLikeSecretName(relativePath) || nameAllowed(relativePath, allowNames)) return;
  throw new PathRefusedError(
    `${JSON.stringify(relativePath.slice(0, 80))} looks like a secret (keys, credentials, passwords, .env): refused. ` +
      'The caller can allow such names with allowNames.',
  );
}

function globMatches(glob: string, name: string): boolean {
  const parts = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 'i').test(name);
}

/** True when `candidate` is strictly inside `rootReal`. */
export function isInside(rootReal: string, candidate: string): boolean {
  return candidate.startsWith(rootReal + path.sep);
}

/**
 * Resolves `input` against `rootReal` (already real, from {@link resolveRoot}) to a real path that
 * exists and lies inside the root, following symlinks only as far as they stay inside.
 *
 * @throws {PathRefusedError} for any refused text (see {@link checkPathText}), a path leaving the root
 * (by `..` or by a symlink, including a symlinked parent folder), a missing path, or a folder.
 */
export async function resolveSafePath(
  rootReal: string,
  input: string,
  options: SafePathOptions = {},
): Promise<SafePath> {
  const segments = checkPathText(input, options);
  const shown = JSON.stringify(input.slice(0, 80));
  const lexical = path.resolve(rootReal, ...segments);
  if (!isInside(rootReal, lexical)) {
    throw new PathRefusedError(`${shown} leaves the root folder: give a path inside it, without "..".`);
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new PathRefusedError(`${shown} is a symlink loop.`);
    throw new PathRefusedError(`No file ${shown} under the root: check the path (relative to the root).`);
  }
  if (!isInside(rootReal, real)) {
    throw new PathRefusedError(`${shown} is a symlink leading outside the root folder: refused.`);
  }
  // Said here, before any extension or name check, so that a folder is called a folder.
  const info = await stat(real).catch(() => {
    throw new PathRefusedError(`No file ${shown} under the root: check the path (relative to the root).`);
  });
  if (info.isDirectory()) {
    throw new PathRefusedError(`${shown} is a folder, not a file: give a file path.`);
  }
  const relativePath = path.relative(rootReal, real).split(path.sep).join('/');
  // A symlink inside the root may still point at a hidden file; check what is really opened.
  if (!options.allowHidden && relativePath.split('/').some((s) => s.startsWith('.'))) {
    throw new PathRefusedError(`${shown} leads to a hidden file or folder: refused.`);
  }
  return { realPath: real, relativePath };
}

/**
 * Opens a resolved path for reading without following a final symlink or blocking on a FIFO, then
 * checks (on the open descriptor, so a file swapped in after `resolveSafePath` cannot slip through)
 * that it is a regular file and, where `/proc/self/fd` exists, that the descriptor's real path is exactly
 * the checked `safe.realPath` (so every check made on that path, hidden folders included, holds for
 * what is read).
 *
 * @returns the open handle and its size in bytes; the caller closes the handle.
 * @throws {PathRefusedError} for a directory, device, FIFO, socket, or a file that moved outside.
 */
export async function openRegularFile(
  rootReal: string,
  safe: SafePath,
): Promise<{ handle: FileHandle; size: number }> {
  const shown = JSON.stringify(safe.relativePath);
  let handle: FileHandle;
  try {
    handle = await open(safe.realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new PathRefusedError(`${shown} is a folder, not a file: give a file path.`);
    // ENXIO: a socket; ELOOP: the file became a symlink after it was resolved.
    if (code === 'ENXIO') throw new PathRefusedError(`${shown} is not a regular file (a socket): refused.`);
    if (code === 'ELOOP')
      throw new PathRefusedError(`${shown} changed into a symlink while opening: refused.`);
    throw new PathRefusedError(`${shown} cannot be opened (${code ?? 'error'}).`);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new PathRefusedError(`${shown} is a folder, not a file: give a file path.`);
    if (!info.isFile()) {
      throw new PathRefusedError(`${shown} is not a regular file (device, FIFO or socket): refused.`);
    }
    // What was opened must be exactly what was checked: a folder on the way swapped for a symlink
    // (to a hidden folder, or outside) after resolveSafePath would otherwise slip through.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && (opened !== safe.realPath || !isInside(rootReal, opened))) {
      throw new PathRefusedError(`${shown} changed while being opened: refused.`);
    }
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
