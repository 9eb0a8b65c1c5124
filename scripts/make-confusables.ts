/**
 * Writes `src/react/confusables.ts`: the characters that read as the Latin letters, digits, colon and
 * apostrophe that protocol labels are written with, from Unicode's confusables data (UTS #39,
 * `confusables.txt`) as the npm package `unhomoglyph` ships it (its `data.json`, exact-pinned in
 * package.json's devDependencies). Run after updating that package:
 *
 * ```sh
 * node --import tsx scripts/make-confusables.ts && npx biome format --write src/react/confusables.ts
 * ```
 *
 * What is kept, for each character `c` of the data whose prototype `p` (UTS #39's mapping) is made, after
 * removing accents, of `A-Z a-z 0-9 : ' _ -` and space: `c` reads as `p`. Left out are ASCII characters (the
 * reader compares ASCII itself) and characters that NFKD already folds to what they read as (fullwidth,
 * mathematical and other compatibility forms: the reader folds a character it does not find here). Two supplements, kept short and listed below: Latin small
 * capitals, which the data keeps as prototypes of their own (case forms of a letter that Unicode gives no
 * case mapping to), and a few look-alikes the data maps elsewhere or not at all.
 *
 * test/react/confusables.test.ts checks that the written table is what this script makes from the
 * installed package.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Where the table is written. */
const OUTPUT = fileURLToPath(new URL('../src/react/confusables.ts', import.meta.url));

/**
 * Latin small capitals, and the letters the data gives as prototypes of small-capital look-alikes (kra `ĸ`
 * for `κ` `к` `ᴋ`, turned w `ʍ` for `м` `ᴍ`): the letter each is read as.
 */
export const SMALL_CAPITALS: Readonly<Record<string, string>> = {
  '\u1d00': 'a',
  '\u0299': 'b',
  '\u1d04': 'c',
  '\u1d05': 'd',
  '\u1d07': 'e',
  '\ua730': 'f',
  '\u0262': 'g',
  '\u029c': 'h',
  '\u026a': 'i',
  '\u1d0a': 'j',
  '\u1d0b': 'k',
  '\u0138': 'k',
  '\u029f': 'l',
  '\u1d0d': 'm',
  '\u028d': 'm',
  '\u0274': 'n',
  '\u1d0f': 'o',
  '\u1d18': 'p',
  '\ua7af': 'q',
  '\u0280': 'r',
  '\ua731': 's',
  '\u1d1b': 't',
  '\u1d1c': 'u',
  '\u1d20': 'v',
  '\u1d21': 'w',
  '\u028f': 'y',
  '\u1d22': 'z',
};

/**
 * Look-alikes that confusables.txt 13.0 maps to no Latin letter (or to another look-alike), kept because a
 * reader takes them for one: Greek epsilon, chi and digamma, Cyrillic shha and qa capitals, the Mongolian
 * colon and the Z notation type colon.
 */
export const ADDITIONS: Readonly<Record<string, string>> = {
  '\u03b5': 'e',
  '\u03c7': 'x',
  '\u03dd': 'f',
  '\u04ba': 'H',
  '\u051a': 'Q',
  '\u1804': ':',
  '\u2982': ':',
};

/** What a prototype reads as, when it is made of label characters; accents removed, small capitals read. */
function readAs(prototype: string): string | undefined {
  const folded = [...prototype.normalize('NFD').replace(/\p{M}/gu, '')]
    .map((char) => SMALL_CAPITALS[char] ?? char)
    .join('');
  return /^[A-Za-z0-9:' _-]+$/.test(folded) ? folded : undefined;
}

/**
 * The table from the data (`{ character: prototype }`): each character the reader looks up (not ASCII, not
 * changed by NFKD) with what it reads as, in code point order.
 */
export function buildTable(data: Readonly<Record<string, string>>): Map<string, string> {
  const entries = new Map<string, string>();
  const candidates: [string, string][] = [
    ...Object.entries(data).flatMap(([char, prototype]): [string, string][] => {
      const reads = readAs(prototype);
      return reads === undefined ? [] : [[char, reads]];
    }),
    ...Object.entries(SMALL_CAPITALS),
    ...Object.entries(ADDITIONS),
  ].filter(([char]) => [...char].length === 1 && char.codePointAt(0)! >= 0x80);
  // Characters NFKD leaves alone first; then those whose NFKD form does not already read the same.
  for (const [char, reads] of candidates) {
    if (char.normalize('NFKD') === char && !entries.has(char)) entries.set(char, reads);
  }
  for (const [char, reads] of candidates) {
    if (entries.has(char) || readsAfterNfkd(char, entries) === reads) continue;
    entries.set(char, reads);
  }
  const order = (a: string, b: string) => a.codePointAt(0)! - b.codePointAt(0)!;
  return new Map([...entries].sort(([a], [b]) => order(a, b)));
}

/** What `char` reads as through NFKD and the table alone (marks dropped). */
function readsAfterNfkd(char: string, entries: ReadonlyMap<string, string>): string {
  return [...char.normalize('NFKD').replace(/\p{M}/gu, '')].map((c) => entries.get(c) ?? c).join('');
}

/** The data of the installed `unhomoglyph` package. */
export function loadData(): Record<string, string> {
  return createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
}

/** The version of the installed `unhomoglyph` package. */
export function dataVersion(): string {
  return (createRequire(import.meta.url)('unhomoglyph/package.json') as { version: string }).version;
}

function escaped(text: string): string {
  return [...text]
    .map((char) => {
      const code = char.codePointAt(0)!;
      if (code >= 0x20 && code < 0x7f && char !== "'" && char !== '\\') return char;
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    })
    .join('');
}

/** The source of `src/react/confusables.ts` for `table`. */
export function render(table: ReadonlyMap<string, string>, version: string): string {
  const groups = new Map<string, string>();
  for (const [char, reads] of table) groups.set(reads, (groups.get(reads) ?? '') + char);
  const keys = [...groups.keys()].sort();
  const lines = keys.map((reads) => `  '${escaped(reads)}': '${escaped(groups.get(reads)!)}',`);
  return `/**
 * Characters that read as the Latin letters, digits, colon and apostrophe of protocol labels, grouped by what
 * they read as: Unicode's confusables data (UTS #39, confusables.txt) as unhomoglyph@${version} ships it,
 * plus Latin small capitals and a few look-alikes (see scripts/make-confusables.ts).
 * Generated by \`scripts/make-confusables.ts\`: do not edit. ${table.size} characters.
 *
 * Unicode data: Copyright © 1991-2020 Unicode, Inc.; Unicode License (https://www.unicode.org/license.txt).
 *
 * @module
 */

/** What each character reads as (the key) and the characters that do (the value, in code point order). */
export const CONFUSABLE_GROUPS: Readonly<Record<string, string>> = {
${lines.join('\n')}
};
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const table = buildTable(loadData());
  writeFileSync(OUTPUT, render(table, dataVersion()));
  console.log(`wrote ${OUTPUT}: ${table.size} characters`);
}
