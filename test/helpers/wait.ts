/**
 * Waiting in tests without guessing a time: poll a condition until it holds (or a generous deadline
 * passes, which only a broken program reaches), instead of sleeping a fixed time and hoping.
 */

/**
 * Polls `check` every `intervalMs` until it returns a value other than `undefined`/`false`, and returns it.
 * @throws Error naming `what` after `timeoutMs` (default 20 s: far beyond any healthy wait).
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 20_000, intervalMs = 25 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError}` : ''}`);
}
