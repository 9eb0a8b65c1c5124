/**
 * Temp folders for tests that are removed when the test file's process exits (`node --test` runs each
 * file in a process of its own), whether its tests passed or failed, so a run leaves nothing in the
 * system's temp folder. Use it for folders a whole file or a helper shares; a folder of one test can
 * also be removed in that test's `t.after`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created = new Set<string>();

/** A new folder in the system's temp folder (`<prefix>XXXXXX`), removed at process exit. */
export function tempDir(prefix = 'taoloop-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (created.size === 0) process.once('exit', removeTempDirs);
  created.add(dir);
  return dir;
}

/** Removes the folders {@link tempDir} made so far (at exit it runs by itself). */
export function removeTempDirs(): void {
  for (const dir of created) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  created.clear();
}
