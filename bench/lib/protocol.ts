/**
 * The bench protocol: a bench script prints human-readable output on stderr and, on stdout, one JSON line
 * per figure. `bench/run.ts` reads those lines and prints one table. See `bench/README.md`.
 *
 * @module
 */

/** One measured figure, compared with a baseline measured in the same run. */
export interface Figure {
  /** What was measured, naming our side: `parse accuracy, hard corpus (taoloop)`. */
  figure: string;
  value: number;
  /** Unit of `value` and `baselineValue`: `%`, `ms`, `tokens`, ... */
  unit: string;
  /**
   * What kind of baseline it is: `peer` (another library, measured in the same run), `self` (taoloop
   * itself another way: a self-baseline, which cannot fail against a peer), `ideal` (a bound no code can
   * beat), `floor` (the runtime alone, such as `node -e ""`), `naive` (the simplest code that does the job),
   * or `goal` (the goal's number). Printed next to the baseline in the table.
   */
  against: 'peer' | 'self' | 'ideal' | 'floor' | 'naive' | 'goal';
  /** What the baseline is, with its version: `LangChain.js 0.3.37 ReActSingleInputOutputParser`. */
  baseline: string;
  baselineValue: number;
  /** `value / baselineValue`; `null` when the baseline is 0 (JSON has no Infinity). */
  ratio: number | null;
  /** The shell command that reproduces this figure alone, run from the repository root. */
  command: string;
  /** The project's goal for this figure, in words: `>= 1.0x LangChain`. */
  goal?: string;
  met?: boolean;
}

/** `value / baseline`, or `null` when the baseline is 0. */
export function ratioOf(value: number, baseline: number): number | null {
  return baseline === 0 ? null : value / baseline;
}

/** Prints one figure as a protocol line on stdout. */
export function emitFigure(figure: Figure): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

/** Reads a protocol line; returns undefined when the line is not a well-formed figure. */
export function parseFigure(line: string): Figure | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const f = value as Record<string, unknown>;
  const ok =
    typeof f.figure === 'string' &&
    typeof f.value === 'number' &&
    typeof f.unit === 'string' &&
    typeof f.baseline === 'string' &&
    ['peer', 'self', 'ideal', 'floor', 'naive', 'goal'].includes(f.against as string) &&
    typeof f.baselineValue === 'number' &&
    (typeof f.ratio === 'number' || f.ratio === null) &&
    typeof f.command === 'string' &&
    (f.goal === undefined || typeof f.goal === 'string') &&
    (f.met === undefined || typeof f.met === 'boolean');
  return ok ? (f as unknown as Figure) : undefined;
}
