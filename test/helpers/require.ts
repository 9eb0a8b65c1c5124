/**
 * Tests that need something outside the repository (`../shared/react-data`, pytest) skip where it is
 * missing, so a fresh clone without it still passes; with TAOLOOP_REQUIRE_DATA=1 (set by `.ci/run`, where
 * both are present) a missing one fails the test instead, so CI never passes by skipping.
 */

/** `false` when `present`; else why the test is skipped. @throws {Error} when TAOLOOP_REQUIRE_DATA is set. */
export function skipUnless(present: boolean, what: string): string | false {
  if (present) return false;
  if (process.env.TAOLOOP_REQUIRE_DATA) throw new Error(`TAOLOOP_REQUIRE_DATA: ${what} is missing`);
  return `needs ${what}`;
}
