/**
 * Datasets: the paper's HotpotQA and FEVER samples from the shared ReAct data folder, or any JSONL file
 * with question and answer fields.
 *
 * Source: Yao et al. 2022, section 3.1 (HotpotQA, FEVER); the samples are the items ReAct's notebooks
 * evaluate (`random.Random(233)` shuffle), see `react-data/README.md`.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Thrown for an unusable dataset, prompt file or data folder; the message says what to change. */
export class EvalConfigError extends Error {
  override name = 'EvalConfigError';
}

/** How a dataset is scored: `qa` by exact match and F1, `fever` by label accuracy. */
export type DatasetKind = 'qa' | 'fever';

/** One question (or claim) with its gold answer (or label). */
export interface EvalItem {
  /** Unique within the dataset: the record's `id`, else `idx`, else its 1-based line number. */
  id: string;
  question: string;
  answer: string;
}

/** A loaded dataset. */
export interface Dataset {
  /** `hotpotqa`, `fever`, or the file's path as given. */
  name: string;
  kind: DatasetKind;
  items: EvalItem[];
}

/** Environment variable naming the ReAct data folder (prompts, datasets, trajectories). */
export const DATA_DIR_ENV = 'TAOLOOP_REACT_DATA';

const BUILT_IN = {
  hotpotqa: { file: 'hotpotqa_dev_react_seed233_500.jsonl', kind: 'qa' },
  fever: { file: 'fever_paper_dev_react_seed233_200.jsonl', kind: 'fever' },
} as const;

/** The taoloop repository (or installed package) root: the nearest folder above this file with a package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Where {@link resolveDataDir} looks, in order, each folder once (run from the taoloop folder, the two
 * defaults are the same folder).
 */
export function dataDirCandidates(dataDir?: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (dataDir) return [resolve(dataDir)];
  return [
    ...new Set([
      ...(env[DATA_DIR_ENV] ? [resolve(env[DATA_DIR_ENV])] : []),
      resolve(packageRoot(), '..', 'shared', 'react-data'),
      resolve('..', 'shared', 'react-data'),
    ]),
  ];
}

/**
 * The ReAct data folder: `dataDir` when given, else `$TAOLOOP_REACT_DATA`, else `../shared/react-data`
 * next to the taoloop repository, else `../shared/react-data` from the working directory.
 *
 * @throws {EvalConfigError} when none of them exists; the message lists where it looked.
 */
export function resolveDataDir(dataDir?: string, env: NodeJS.ProcessEnv = process.env): string {
  const candidates = dataDirCandidates(dataDir, env);
  const found = candidates.find((dir) => existsSync(dir));
  if (found === undefined) {
    throw new EvalConfigError(
      `The ReAct data folder (prompts and datasets) was not found; looked in:\n${candidates.map((c) => `  ${c}`).join('\n')}\nSet ${DATA_DIR_ENV}=<folder> or pass --data-dir <folder>; a JSONL file of your own (--dataset FILE.jsonl) needs no data folder.`,
    );
  }
  return found;
}

/**
 * Loads `hotpotqa` or `fever` from the data folder, or a JSONL file. In a file, each line is an object with
 * `question` (or `claim`) and `answer` (or `label`); a file whose lines have `claim` is scored as FEVER.
 *
 * @param resolveDir called only for the built-in names, to find the data folder.
 * @throws {EvalConfigError} for a missing file or a line without question and answer.
 */
export function loadDataset(spec: string, resolveDir: () => string = () => resolveDataDir()): Dataset {
  const builtIn = spec === 'hotpotqa' || spec === 'fever' ? BUILT_IN[spec] : undefined;
  const file = builtIn ? join(resolveDir(), builtIn.file) : resolve(spec);
  if (!existsSync(file)) {
    throw new EvalConfigError(
      `Dataset file ${file} not found. Use --dataset hotpotqa, fever, or a JSONL file of {"question", "answer"}.`,
    );
  }
  const items: EvalItem[] = [];
  let claims = 0;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const record = parseLine(line, file, i + 1);
      const question = record.question ?? record.claim;
      const answer = record.answer ?? record.label;
      if (typeof question !== 'string' || (typeof answer !== 'string' && typeof answer !== 'number')) {
        throw new EvalConfigError(
          `${file}:${i + 1} needs "question" (or "claim") and "answer" (or "label").`,
        );
      }
      if (record.claim !== undefined) claims += 1;
      const id = record.id ?? record.idx ?? i + 1;
      items.push({ id: String(id), question, answer: String(answer) });
    });
  const ids = new Set(items.map((item) => item.id));
  if (ids.size !== items.length) throw new EvalConfigError(`${file} has items with the same id.`);
  const kind = builtIn?.kind ?? (claims > 0 && claims === items.length ? 'fever' : 'qa');
  return { name: spec, kind, items };
}

function parseLine(line: string, file: string, lineNumber: number): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new EvalConfigError(`${file}:${lineNumber} is not a JSON object.`);
}
