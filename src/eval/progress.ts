/**
 * A one-line progress bar for an evaluation: items done, running score, tokens and cost. Drawn on a
 * terminal only, so piped or redirected output stays clean.
 *
 * @module
 */
import type { EvalProgress } from './runner.js';

/** The progress line, without terminal control codes. */
export function formatProgress(progress: EvalProgress, scoreLabel: string, barWidth = 24): string {
  const { total, done } = progress;
  const filled = total === 0 ? barWidth : Math.round((done / total) * barWidth);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}`;
  const score = done === 0 ? '-' : `${((progress.correct / done) * 100).toFixed(1)}%`;
  return [
    `[${bar}] ${done}/${total}`,
    `${scoreLabel} ${score}`,
    `${progress.tokens.toLocaleString('en-US')} tokens`,
    `$${progress.costUsd.toFixed(4)}`,
    `${progress.running} running`,
  ].join(' · ');
}

/** A progress bar drawing on `stream`; {@link ProgressBar.stop} ends the line. */
export interface ProgressBar {
  update(progress: EvalProgress): void;
  stop(): void;
}

/**
 * A progress bar on `stream` when it is a terminal (`isTTY`), else one that draws nothing.
 *
 * @param stream @default process.stderr
 */
export function createProgressBar(
  scoreLabel: string,
  stream: NodeJS.WriteStream = process.stderr,
): ProgressBar {
  if (!stream.isTTY) return { update() {}, stop() {} };
  let drawn = false;
  return {
    update(progress) {
      const width = Math.max(20, (stream.columns ?? 100) - 1);
      stream.write(`\r\x1b[2K${formatProgress(progress, scoreLabel).slice(0, width)}`);
      drawn = true;
    },
    stop() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
