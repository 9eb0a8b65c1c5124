/**
 * A short fingerprint of a text (64-bit FNV-1a, as 16 hex digits): to notice that a stored result was made
 * from other inputs, never as a security check (it is not a cryptographic hash).
 *
 * @module
 */

const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** The FNV-1a 64-bit hash of `text`'s UTF-16 code units, as 16 lowercase hex digits. */
export function fingerprint(text: string): string {
  let hash = OFFSET;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * PRIME) & MASK;
  }
  return hash.toString(16).padStart(16, '0');
}
