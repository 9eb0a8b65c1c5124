/**
 * Text as a model reads it, for deciding whether a line of tool output poses as a protocol step:
 * split on every Unicode line terminator, invisible characters dropped, compatibility forms folded
 * (NFKD: fullwidth `Ａ`, mathematical `𝐀`, ligatures) and look-alike letters from other scripts mapped
 * to the Latin letters of the labels (Cyrillic `А`, Greek `Α`, small capitals `ᴀ`...).
 *
 * Every function here is one pass over its input, without a regex per line, so tool output of any
 * size (10,000 lines, a megabyte of zero-width spaces) costs linear time.
 *
 * @module
 */

/**
 * Characters that end a line for some reader: LF, CR (alone or before LF), VT, FF, NEL (U+0085), LINE
 * SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) (the Unicode line terminators, UAX #14 / ECMA-262).
 */
export const LINE_TERMINATORS: readonly string[] = ['\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029'];

function isTerminator(code: number): boolean {
  return (
    code === 10 ||
    code === 13 ||
    code === 11 ||
    code === 12 ||
    code === 0x85 ||
    code === 0x2028 ||
    code === 0x2029
  );
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

/** True when `text` holds any line terminator. */
export function hasLineTerminator(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isTerminator(text.charCodeAt(i))) return true;
  return false;
}

/** Table values; 0 means the character is kept as it is. */
const DROP = 1;
const SPACE = 2;
let bmpKinds: Uint8Array | undefined;

/**
 * What a BMP code unit is to a reader: dropped (format characters such as zero-width spaces, joiners,
 * BOM, soft hyphen, bidi controls; combining marks, variation selectors; Hangul fillers), a space (every
 * space separator, no-break space included), or kept. Built once, on first use, from Unicode properties.
 */
function kinds(): Uint8Array {
  if (bmpKinds) return bmpKinds;
  const table = new Uint8Array(0x10000);
  const drop = /^[\p{Cf}\p{Mn}\p{Me}\u115f\u1160\u3164\uffa0]$/u;
  const space = /^\p{Zs}$/u;
  for (let code = 0x80; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCharCode(code);
    if (drop.test(char)) table[code] = DROP;
    else if (space.test(char)) table[code] = SPACE;
  }
  bmpKinds = table;
  return table;
}

const ASTRAL_DROP = /^[\p{Cf}\p{Mn}\p{Me}]$/u;

/**
 * Letters of other scripts that look like the Latin letters of the protocol labels (after NFKD), from
 * Unicode's confusables data (UTS #39) for the Latin alphabet: Cyrillic, Greek, Armenian, Cherokee
 * capitals and Latin small capitals and variants. Case does not matter: labels match in any case.
 */
const CONFUSABLE_GROUPS: Readonly<Record<string, string>> = {
  a: 'аАαΑɑᴀꭺᎪ',
  b: 'ВвΒʙᏴꞴ',
  c: 'сСϲϹᴄᏟⅽ',
  d: 'ԁᴅᎠ',
  e: 'еЕεΕᴇꭼᎬҽ',
  f: 'ꜰϝϜ',
  g: 'ɡɢᏀԍ',
  h: 'һНҺΗʜᎻհ',
  i: 'іІӏӀιΙɪıᎥ',
  j: 'јЈϳᴊᎫ',
  k: 'кКκΚᴋᏦ',
  l: 'ʟᏞ',
  m: 'мМΜᴍᎷ',
  n: 'ոΝɴ',
  o: 'оОοΟσᴏօ',
  p: 'рРρΡᴘᏢ',
  q: 'ԛԚզ',
  r: 'ʀᏒ',
  s: 'ѕЅꜱᏚ',
  t: 'тТτΤᴛᎢ',
  u: 'ᴜսυ',
  v: 'νᴠᏙ',
  w: 'ԝԜᴡᏔ',
  x: 'хХχΧ',
  y: 'уУүҮΥʏ',
  z: 'ΖᴢᏃ',
};

const CONFUSABLES: ReadonlyMap<string, string> = new Map(
  Object.entries(CONFUSABLE_GROUPS).flatMap(([latin, group]) => [...group].map((char) => [char, latin])),
);

/**
 * The first `maxChars` visible characters of `line`, as a reader sees them: leading spaces and
 * invisible characters skipped, invisible characters inside dropped, other space characters made
 * plain spaces, compatibility forms folded and look-alike letters mapped to Latin.
 *
 * @example
 * ```ts
 * visibleHead('\u200b\u00a0Аctіon\u200d: x', 64); // 'Action: x' (Cyrillic А and і, zero-width joiner)
 * ```
 */
export function visibleHead(line: string, maxChars: number): string {
  let i = 0;
  while (i < line.length && isBlank(line.charCodeAt(i))) i++;
  const start = i;
  // Plain ASCII with single spaces, the usual line: the head is a slice.
  for (; i < line.length && i - start < maxChars; i++) {
    const code = line.charCodeAt(i);
    if (code >= 0x80 || (isBlank(code) && isBlank(line.charCodeAt(i - 1)))) break;
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

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * NFKD, then marks and invisible characters dropped, spaces made plain (a run of them counts once) and
 * look-alikes mapped to Latin.
 */
function fold(text: string): string {
  const table = kinds();
  let out = '';
  for (const char of text.normalize('NFKD')) {
    const code = char.codePointAt(0)!;
    let seen: string;
    if (isBlank(code) || (code < 0x10000 && table[code] === SPACE)) seen = ' ';
    else if (code < 0x80) seen = char;
    else if (code >= 0x10000) seen = ASTRAL_DROP.test(char) ? '' : (CONFUSABLES.get(char) ?? char);
    else seen = table[code] === DROP ? '' : (CONFUSABLES.get(char) ?? char);
    if (seen === ' ' && out.endsWith(' ')) continue;
    out += seen;
  }
  return out;
}
