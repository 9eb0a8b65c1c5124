/**
 * Text from a model or a tool made safe to print on a terminal. A model (or a web page, a file, a test's
 * output) can contain escape sequences that move the cursor, clear lines or the screen, retitle the
 * window, or bidi overrides that reorder what is shown: enough to make an approval prompt show another
 * action than the one being approved. Every such character is printed as a visible escape instead.
 *
 * Everything the CLI prints that came from a model, a tool or a trace file goes through {@link safeText};
 * `--json` output is JSON-escaped already.
 *
 * @module
 */

/**
 * C0 controls except tab and newline, DEL, C1 controls (U+0080–U+009F), and the bidi embedding, override
 * and isolate characters (U+202A–U+202E, U+2066–U+2069).
 */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const visibleEscape = (char: string): string => {
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * `text` with every terminal control character written as a visible escape: ESC becomes `\x1b`, a lone
 * carriage return `\x0d`, U+202E `\u202e`. Newlines and tabs stay (`\r\n` becomes `\n`); everything else
 * is unchanged.
 *
 * @example
 * ```ts
 * safeText('rm -rf /\x1b[2K\x1b[1Gls'); // 'rm -rf /\\x1b[2K\\x1b[1Gls'
 * ```
 */
export function safeText(text: string): string {
  // A trace is data: a field that should hold text may hold anything. Only text and numbers print.
  const value: unknown = text;
  if (typeof value !== 'string') return count(value);
  return value.replace(/\r\n/g, '\n').replace(UNSAFE, visibleEscape);
}

/** A count or other number to print: the number when it is a finite one, else `?` (a trace is data). */
export function count(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : '?';
}

/**
 * {@link safeText} on one line: a newline (and U+2028, U+2029) shows as `⏎`, and the other line breaks
 * (`\r`, `\v`, `\f`, U+0085) as safeText's escapes, so a text cannot draw lines of its own under a prompt
 * (a fake question, a fake answer).
 *
 * @example
 * ```ts
 * safeLine('a.js\nAllow it? n'); // 'a.js⏎Allow it? n'
 * ```
 */
export function safeLine(text: string): string {
  return safeText(text).replace(/[\n\u2028\u2029]/g, '⏎');
}
