/**
 * Checks the browser tests run on a page in each state they reach: no sideways scroll at a desktop and a
 * phone size, no serious or critical axe-core violation, in light and dark, with a screenshot of each.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

/** axe-core's browser script (a devDependency: `npm ci` installs it). */
export function axeScript(): string {
  try {
    return createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  } catch {
    throw new Error(
      'axe-core is not installed: run `npm ci` (it is a devDependency) to check accessibility.',
    );
  }
}

export const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
export const SCHEMES = ['light', 'dark'] as const;

/** Whether the page scrolls sideways: its width and the window's. */
export async function sidewaysScroll(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  // Browser code is passed as text: this project's type check has no DOM types.
  return (await page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  )) as { scrollWidth: number; innerWidth: number };
}

/** The serious and critical axe-core violations on the page, one line each. */
export async function axeProblems(page: Page): Promise<string[]> {
  // Evaluated, not added as a <script>: the playground's Content-Security-Policy forbids inline scripts.
  if ((await page.evaluate('typeof window.axe')) !== 'object')
    await page.evaluate(await readFile(axeScript(), 'utf8'));
  const violations = (await page.evaluate('window.axe.run(document).then((r) => r.violations)')) as {
    id: string;
    impact: string;
    nodes: { target: string[]; failureSummary: string }[];
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`).join(' | ')}`,
    );
}

/**
 * Checks the page in every size and scheme: no sideways scroll, no serious or critical axe violation, and
 * a screenshot `<state>-<size>-<scheme>.png` in `screenshots`. Leaves the page at 1280x800, light.
 */
export async function checkState(page: Page, state: string, screenshots: string): Promise<void> {
  await mkdir(screenshots, { recursive: true });
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      const where = `${state}, ${size.name}, ${scheme}`;
      const { scrollWidth, innerWidth } = await sidewaysScroll(page);
      assert.ok(scrollWidth <= innerWidth, `${where}: scrolls sideways (${scrollWidth} > ${innerWidth})`);
      assert.deepEqual(await axeProblems(page), [], `${where}: axe-core`);
      await page.screenshot({
        path: path.join(screenshots, `${state}-${size.name}-${scheme}.png`),
        fullPage: true,
      });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A new page that records dialogs, script errors and console errors (a CSP violation is one). */
export async function recordingPage(context: BrowserContext) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { page, problems };
}

/** The playground at `url`, once its model picker is filled, recording problems as {@link recordingPage}. */
export async function openPlayground(context: BrowserContext, url: string) {
  const { page, problems } = await recordingPage(context);
  await page.goto(url);
  await page.locator('#model option').first().waitFor({ state: 'attached' });
  return { page, problems };
}

/** The id of the element that has focus, or its class when it has no id. */
export function focused(page: Page): Promise<string> {
  return page.evaluate(
    "document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName || ''",
  ) as Promise<string>;
}

/** Calls `check` until it returns a value that is not `undefined` (polling), or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
