/**
 * The results file: one JSON line per finished (strategy, item), appended as each one finishes, so a
 * killed run loses only what was in flight and a rerun resumes from it.
 *
 * @module
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  truncateSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { EvalConfigError } from './datasets.js';
import { exactMatch, f1Score, labelAccuracy } from './metrics.js';
import { type ItemResult, resultKey } from './types.js';

/**
 * Reads a results file; a missing file is empty. A last line cut off mid-write (the process was killed)
 * is removed from the file, so that the next append starts on a fresh line.
 *
 * @throws {EvalConfigError} for a malformed line that is not the last.
 */
export function readResults<R = ItemResult>(file: string): R[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.length !== text.length) truncateSync(file, Buffer.byteLength(complete));
  const results: R[] = [];
  complete.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      results.push(JSON.parse(line) as R);
    } catch {
      throw new EvalConfigError(`${file}:${i + 1} is not a result line; remove it or pass another --out.`);
    }
  });
  return results;
}

/** Appends one result as a line (synchronously, so a finished item is on disk before the next starts). */
export function appendResult<R = ItemResult>(file: string, result: R): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(result)}\n`);
}

/** A results file kept open for appending (see {@link openResultsFile}). */
export interface ResultsAppender<R = ItemResult> {
  /** Appends one result as a line, synchronously, as {@link appendResult} does. */
  append(result: R): void;
  /** Closes the file (when anything was appended); later appends still write, opening the file each time. */
  close(): void;
}

/**
 * {@link appendResult} for many results into one file: the folder is made and the file opened (for
 * appending) at the first append, not at each; every append is still one synchronous write of one line, so
 * a finished item is on disk before the next starts. Nothing is created until something is appended.
 */
export function openResultsFile<R = ItemResult>(file: string): ResultsAppender<R> {
  let fd: number | undefined;
  let closed = false;
  return {
    append(result) {
      // After close (a run that failed while some items were still running), each late result is still
      // written, by path, so no descriptor is left open.
      if (closed) return appendResult(file, result);
      if (fd === undefined) {
        mkdirSync(dirname(file), { recursive: true });
        fd = openSync(file, 'a');
      }
      appendFileSync(fd, `${JSON.stringify(result)}\n`);
    },
    close() {
      closed = true;
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** The latest result per (strategy, item), in the order of those latest lines: a retry replaces its failed try. */
export function latestResults(results: readonly ItemResult[]): ItemResult[] {
  const byKey = new Map<string, ItemResult>();
  for (const result of results) {
    const key = resultKey(result.strategy, result.itemId);
    byKey.delete(key);
    byKey.set(key, result);
  }
  return [...byKey.values()];
}

/** Scores an answer: exact match and F1 for QA, label accuracy for FEVER. */
export function scoreAnswer(
  kind: 'qa' | 'fever',
  answer: string | null,
  gold: string,
): { score: 0 | 1; f1?: number } {
  switch (kind) {
    case 'qa':
      return { score: exactMatch(answer, gold), f1: f1Score(answer, gold).f1 };
    case 'fever':
      return { score: labelAccuracy(answer, gold) };
    default:
      return kind satisfies never;
  }
}
