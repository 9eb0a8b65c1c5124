/**
 * Library option names in messages, put in the words of the command line: a CLI user passes
 * `--model-timeout 2s`, not `modelTimeoutMs: 2000`.
 *
 * @module
 */

/** Library options that have a flag of their own, and the flag. */
const FLAGS: readonly [option: string, flag: string][] = [
  ['modelTimeoutMs', '--model-timeout'],
  ['timeoutMs', '--timeout'],
  ['maxSteps', '--max-steps'],
  ['maxOutputTokens', '--max-output-tokens'],
  ['maxCostUsd', '--max-cost'],
];

/**
 * `message` with each library option name replaced by its flag; `(modelTimeoutMs: 2000 ms)` becomes
 * `(--model-timeout 2s)`. A quoted name (`"maxSteps"`) is a config file's key and stays as it is.
 */
export function inFlagNames(message: string): string {
  // A grouped name (`limits.maxCostUsd`) is one option: its group goes with it.
  let text = message.replace(
    /\b(?:[a-zA-Z]+\.)?([a-zA-Z]+Ms): (\d+) ms\b/g,
    (whole, option: string, ms: string) => {
      const flag = FLAGS.find(([name]) => name === option)?.[1];
      return flag ? `${flag} ${seconds(Number(ms))}` : whole;
    },
  );
  // A quoted name is a key of the config file (`"maxSteps": expected ...`), which keeps its name there.
  for (const [option, flag] of FLAGS)
    text = text.replace(new RegExp(`(?<!")\\b(?:[a-zA-Z]+\\.)?${option}\\b(?!")`, 'g'), flag);
  return text;
}

/** `2000` as `2s`, `1500` as `1.5s`: the duration form the flags take. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
