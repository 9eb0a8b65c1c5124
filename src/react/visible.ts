/**
 * Text as a model reads it, for deciding whether a line of tool output poses as a protocol step:
 * split on every Unicode line terminator, invisible characters dropped, compatibility forms folded
 * (NFKD: fullwidth `Ａ`, mathematical `𝐀`, ligatures) and look-alike letters and colons of other scripts
 * mapped to what they imitate by Unicode's confusables data, UTS #39 (Cyrillic `А`, Greek `Α`, Lisu `ꓮ`,
 * Cherokee `Ꭺ`, Coptic `ⲟ`, small capitals `ᴀ`, `꞉` `∶` `։` `ꓽ`...; see `confusables.ts`).
 *
 * Every function here is one pass over its input, without a regex per line, so tool output of any
 * size (10,000 lines, a megabyte of zero-width spaces) costs linear time.
 *
 * @module
 */
import { CONFUSABLE_GROUPS } from './confusables.js';

/**
 * Characters that end a line for some reader: LF, CR (alone or before LF), VT, FF, the file, group and
 * record separators (U+001C to U+001E, line breaks to Python's `splitlines`), NEL (U+0085), LINE SEPARATOR
 * (U+2028) and PARAGRAPH SEPARATOR (U+2029) (the Unicode line terminators, UAX #14 / ECMA-262).
 */
export const LINE_TERMINATORS: readonly string[] = [
  '\n',
  '\r',
  '\v',
  '\f',
  '\x1c',
  '\x1d',
  '\x1e',
  '\u0085',
  '\u2028',
  '\u2029',
];

function isTerminator(code: number): boolean {
  return (
    code === 10 ||
    code === 13 ||
    code === 11 ||
    code === 12 ||
    (code >= 0x1c && code <= 0x1e) ||
    code === 0x85 ||
    code === 0x2028 ||
    code === 0x2029
  );
}

const TERMINATOR = /[\n\r\v\f\x1c-\x1e\u0085\u2028\u2029]/g;

/**
 * Offset of the first line terminator in `text[from, to)`, or -1. Each terminator ends a line on its own
 * (`\r\n` gives an empty line between them), so a reader of a stream, which may see `\r` before its `\n`,
 * finds the same non-empty lines at the same offsets.
 */
export function nextLineBreak(text: string, from: number, to = text.length): number {
  TERMINATOR.lastIndex = from;
  const match = TERMINATOR.exec(text);
  return match && match.index < to ? match.index : -1;
}

/** Offset just after the last line terminator in `text[0, before)`, or 0: where the last line starts. */
export function lastLineStart(text: string, before = text.length): number {
  for (let i = before - 1; i >= 0; i--) if (isTerminator(text.charCodeAt(i))) return i + 1;
  return 0;
}

/** Splits `text` into lines at every line terminator (`\r\n` counts once). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isTerminator(code)) continue;
    lines.push(text.slice(start, i));
    if (code === 13 && text.charCodeAt(i + 1) === 10) i++;
    start = i + 1;
  }
  lines.push(text.slice(start));
  return lines;
}

/**
 * `text` without leading and trailing white space and line terminators: `trim()`, which keeps NEL (U+0085)
 * and U+001C to U+001E, then those too.
 */
export function trimLines(text: string): string {
  let start = 0;
  let end = text.length;
  const blank = (code: number) => isTerminator(code) || /\s/.test(String.fromCharCode(code));
  while (start < end && blank(text.charCodeAt(start))) start++;
  while (end > start && blank(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/** `text` without trailing white space and line terminators (see {@link trimLines}). */
export function trimLinesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (isTerminator(text.charCodeAt(end - 1)) || /\s/.test(text[end - 1]!))) end--;
  return text.slice(0, end);
}

/** True when `text` holds any line terminator. */
export function hasLineTerminator(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isTerminator(text.charCodeAt(i))) return true;
  return false;
}

/** Table values; 0 means the character is kept as it is. */
const DROP = 1;
const SPACE = 2;
/** Control characters (C0 but tab, DEL, C1): nothing a reader sees. */
const CONTROL = 3;
let bmpKinds: Uint8Array | undefined;

/**
 * What a BMP code unit is to a reader: dropped (format characters such as zero-width spaces, joiners,
 * BOM, soft hyphen, bidi controls; combining marks, variation selectors; Hangul fillers), a space (every
 * space separator, no-break space included, and the blank braille pattern U+2800), a control character
 * (C0 but tab, DEL, C1), or kept. Built once, on first use, from Unicode properties.
 */
function kinds(): Uint8Array {
  if (bmpKinds) return bmpKinds;
  const table = new Uint8Array(0x10000);
  const drop = /^[\p{Cf}\p{Mn}\p{Me}\u115f\u1160\u3164\uffa0]$/u;
  const space = /^\p{Zs}$/u;
  for (let code = 0x80; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCharCode(code);
    if (code <= 0x9f) table[code] = CONTROL;
    else if (drop.test(char)) table[code] = DROP;
    else if (space.test(char) || code === 0x2800) table[code] = SPACE;
  }
  for (let code = 0; code < 0x20; code++) if (code !== 9) table[code] = CONTROL;
  table[0x7f] = CONTROL;
  bmpKinds = table;
  return table;
}

const ASTRAL_DROP = /^[\p{Cf}\p{Mn}\p{Me}]$/u;

let confusables: Map<string, string> | undefined;

/**
 * What a character that is neither ASCII nor changed by NFKD reads as, when it reads as a label character:
 * Unicode's confusables data (UTS #39) for the Latin letters, digits, colon and apostrophe (Cyrillic `А`,
 * Greek `Ο`, Cherokee `Ꭺ`, Lisu `ꓮ`, Coptic `ⲟ`, Tifinagh `ⵏ`, the colons `꞉` `∶` `։` `᛬` `ꓽ`...), Latin small
 * capitals (`ʀ`) and a few more (`confusables.ts`, generated). Built once, on first use.
 */
function confusable(char: string): string | undefined {
  if (!confusables) {
    confusables = new Map();
    for (const [reads, chars] of Object.entries(CONFUSABLE_GROUPS)) {
      for (const char of chars) confusables.set(char, reads);
    }
  }
  return confusables.get(char);
}

/**
 * The first `maxChars` visible characters of `line`, as a reader sees them: leading spaces and
 * invisible characters skipped, invisible and control characters inside dropped (terminal escape
 * sequences such as `\x1b[0m` whole, unless `escapes` is false: then only the ESC and its `[` or `]`),
 * other space characters made plain spaces, compatibility forms folded and look-alike letters and colons
 * mapped to Latin letters and `:`.
 *
 * @example
 * ```ts
 * visibleHead('\u200b\u00a0Аctіon\u200d: x', 64); // 'Action: x' (Cyrillic А and і, zero-width joiner)
 * ```
 */
export function visibleHead(line: string, maxChars: number, escapes = true): string {
  let i = 0;
  while (i < line.length && isBlank(line.charCodeAt(i))) i++;
  const start = i;
  // Plain printable ASCII with single spaces, the usual line: the head is a slice.
  for (; i < line.length && i - start < maxChars; i++) {
    const code = line.charCodeAt(i);
    if (code >= 0x7f || (code < 0x20 && code !== 9) || (isBlank(code) && isBlank(line.charCodeAt(i - 1))))
      break;
  }
  if (i === line.length || i - start >= maxChars) return line.slice(start, i);
  const table = kinds();
  const kept = [line.slice(start, i)];
  let count = i - start;
  let blank = false;
  for (; i < line.length && count < maxChars; i++) {
    const code = line.charCodeAt(i);
    let char: string;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < line.length) {
      char = line.slice(i, i + 2);
      i++;
      if (ASTRAL_DROP.test(char)) continue;
    } else if (isBlank(code) || table[code] === SPACE) {
      // A run of spaces reads as one space, however long: it cannot push a label out of view.
      if (!blank) kept.push(' ');
      blank = true;
      continue;
    } else if (table[code] === CONTROL) {
      i = escapeEnd(line, i, escapes);
      continue;
    } else if (code < 0x80 || table[code] === 0) {
      char = line[i]!;
    } else {
      continue;
    }
    kept.push(char);
    blank = false;
    count++;
  }
  return fold(kept.join('')).trimStart().slice(0, maxChars);
}

/**
 * The offset of the last character of the control sequence at `i`: a CSI sequence (`ESC [` or U+009B,
 * parameter and intermediate bytes, a final byte) or an OSC sequence (`ESC ]` to BEL or `ESC \\`) as a
 * terminal reads it; with `whole` false, or for any other control character, the character itself (and the
 * `[` or `]` after an ESC).
 */
function escapeEnd(line: string, i: number, whole: boolean): number {
  const code = line.charCodeAt(i);
  const next = line.charCodeAt(i + 1);
  const introducer = code === 0x1b && (next === 0x5b || next === 0x5d);
  if (!whole) return introducer ? i + 1 : i;
  if (code === 0x9b || (introducer && next === 0x5b)) {
    let j = code === 0x9b ? i + 1 : i + 2;
    while (j < line.length && line.charCodeAt(j) >= 0x30 && line.charCodeAt(j) <= 0x3f) j++;
    while (j < line.length && line.charCodeAt(j) >= 0x20 && line.charCodeAt(j) <= 0x2f) j++;
    const final = line.charCodeAt(j);
    return final >= 0x40 && final <= 0x7e ? j : j - 1;
  }
  if (introducer) {
    for (let j = i + 2; j < line.length; j++) {
      const c = line.charCodeAt(j);
      if (c === 0x07) return j;
      if (c === 0x1b && line.charCodeAt(j + 1) === 0x5c) return j + 1;
    }
    return i + 1;
  }
  return i;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * Each character read as what it imitates (confusables data, looked up before anything else, as UTS #39's
 * skeleton does), else NFKD-folded; then marks and invisible characters dropped, spaces made plain (a run of
 * them counts once) and look-alikes among the folded characters mapped too.
 */
function fold(text: string): string {
  const table = kinds();
  let out = '';
  for (const original of text) {
    const reads = original.charCodeAt(0) < 0x80 ? undefined : confusable(original);
    for (const char of reads === undefined ? original.normalize('NFKD') : reads) {
      const code = char.codePointAt(0)!;
      let seen: string;
      if (isBlank(code) || (code < 0x10000 && table[code] === SPACE)) seen = ' ';
      else if (code < 0x80) seen = char;
      else if (code >= 0x10000) seen = ASTRAL_DROP.test(char) ? '' : (confusable(char) ?? char);
      else seen = table[code] === DROP ? '' : (confusable(char) ?? char);
      if (seen === ' ' && out.endsWith(' ')) continue;
      out += seen;
    }
  }
  return out;
}
