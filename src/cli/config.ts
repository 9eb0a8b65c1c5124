/**
 * The config file, `taoloop.config.json`: defaults for `run` and `ask`, below environment variables and
 * flags. Read from `--config FILE` (or `TAOLOOP_CONFIG`), else from the current folder when present.
 *
 * Approvals (`yes`, `allow`, `allowUnsandboxed`) are refused here on purpose: a config file travels with a
 * repository, and cloning one must never make tools with side effects run without asking.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { DEFAULT_PRICES, findPrice } from '../models/pricing.js';
import { errorMessage } from '../util/own.js';
import { CONFIG_PATH_FLAGS, checkFoundConfigPath } from './config-trust.js';
import { UsageError, usageError } from './errors.js';
import { durationMs, usd } from './options.js';

/** The file looked for in the current folder. */
export const CONFIG_FILE_NAME = 'taoloop.config.json';

/** Applies one of the CLI's value parsers inside a zod schema, so both report the same problems. */
const parsedBy = (parse: (value: string) => number) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    try {
      return parse(String(value));
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: errorMessage(error) });
      return z.NEVER;
    }
  });

const path = z.string().min(1, 'expected a path');

/** A whole number ≥ 1 (a safe integer). */
const wholeNumber = z.number().int('expected a whole number ≥ 1').min(1, 'expected a whole number ≥ 1');

/** A price in USD per million tokens: a number, 0 or more. */
const usdPerMTok = z
  .number('expected a price in USD per million tokens, such as 0.15')
  .min(0, 'expected a price in USD per million tokens, 0 or more');

/** The config file's shape: the long option names in camelCase. */
const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  model: z.string().min(1, 'expected a model spec').optional(),
  /** `--fallback`, in order. */
  fallbackModels: z.array(z.string().min(1, 'expected a model spec')).optional(),
  tools: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v.join(',') : v))
    .optional(),
  docs: path.optional(),
  root: path.optional(),
  wikiCorpus: path.optional(),
  maxSteps: wholeNumber.optional(),
  maxCost: parsedBy(usd).optional(),
  /** Prices by model name, prefix or full spec, as the library's `PriceTable`; `--price` wins for the run's model. */
  prices: z
    .record(
      z.string().min(1, 'expected a model name'),
      z.strictObject({
        inputUsdPerMTok: usdPerMTok,
        outputUsdPerMTok: usdPerMTok,
        cachedInputUsdPerMTok: usdPerMTok.optional(),
        cacheWriteInputUsdPerMTok: usdPerMTok.optional(),
      }),
    )
    .optional(),
  timeout: parsedBy(durationMs).optional(),
  modelTimeout: parsedBy(durationMs).optional(),
  maxOutputTokens: wholeNumber.optional(),
  lang: z.enum(['en', 'pt', 'fr', 'id']).optional(),
  mode: z.enum(['text', 'native', 'auto']).optional(),
  system: z.string().optional(),
  examples: path.optional(),
  stream: z.boolean().optional(),
});

/** A validated config file. */
export type CliConfig = z.output<typeof ConfigSchema>;

/** Keys holding paths, resolved against the config file's folder rather than the current one. */
const PATH_KEYS = ['docs', 'root', 'wikiCorpus', 'examples'] as const;

const APPROVAL_KEYS = new Set(['yes', 'allow', 'allowUnsandboxed']);

/** Config keys with no flag: applied to the command's options all the same. */
const CONFIG_ONLY_KEYS = new Set(['prices']);

/** Config keys whose option has another name. */
const CONFIG_KEY_OPTIONS: Record<string, string> = { fallbackModels: 'fallback' };

/**
 * Reads and validates a config file.
 *
 * @throws {UsageError} when the file is missing, not JSON, or has an unknown key or a bad value; the
 * message names the file, the key and what is expected.
 */
export function loadConfig(file: string): CliConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the config file ${file}: ${errorMessage(error)}`);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const approval = issue.keys.some((k) => APPROVAL_KEYS.has(k));
        return `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}${approval ? ' (approvals are given on the command line only: --yes, --allow TOOL)' : ''}`;
      }
      const where = issue.path.length ? `"${issue.path.join('.')}"` : 'the file';
      return `${where}: ${issue.message}`;
    });
    throw usageError('badConfig', { file, problems: problems.join('\n  ') });
  }
  const config = parsed.data;
  for (const key of PATH_KEYS) {
    const value = config[key];
    if (value !== undefined) config[key] = resolve(dirname(file), value);
  }
  return config;
}

/** The config file a command read, and whether the user named it. */
export interface AppliedConfig {
  file: string;
  /**
   * True when taoloop found the file by itself in the current folder; false when the user named it with
   * `--config` or `TAOLOOP_CONFIG`. A found file is held to `config-trust.ts`'s limits.
   */
  found: boolean;
}

/**
 * Finds the config file for a command (`--config`/`TAOLOOP_CONFIG`, else `taoloop.config.json` in `cwd`)
 * and sets every option it names that neither a flag nor an environment variable set. A file found by
 * itself may only name folders inside its own folder (real paths).
 *
 * @returns the config file used, if any.
 * @throws {UsageError} for a `--config` file that does not exist, a bad config file, or a found config that
 * names a folder outside its own folder (the message says how to allow it).
 */
export function applyConfig(command: Command, cwd: string): AppliedConfig | undefined {
  const given = command.getOptionValue('config') as string | undefined;
  const file = given === undefined ? resolve(cwd, CONFIG_FILE_NAME) : resolve(cwd, given);
  if (!existsSync(file)) {
    if (given !== undefined) throw usageError('configMissing', { file: given });
    return undefined;
  }
  const found = given === undefined;
  const config = loadConfig(file);
  const known = new Set(command.options.map((o) => o.attributeName()));
  const applied: [string, unknown][] = [];
  for (const [name, value] of Object.entries(config)) {
    const key = CONFIG_KEY_OPTIONS[name] ?? name;
    if (key === '$schema' || value === undefined || !(known.has(key) || CONFIG_ONLY_KEYS.has(key))) continue;
    const source = command.getOptionValueSource(key);
    if (source === undefined || source === 'default') applied.push([key, value]);
  }
  // Checked before any option is set: a refused config changes nothing.
  if (found) {
    for (const [key, value] of applied)
      if (Object.hasOwn(CONFIG_PATH_FLAGS, key))
        checkFoundConfigPath(key as keyof typeof CONFIG_PATH_FLAGS, value as string, file);
    const prices = config.prices;
    if (prices !== undefined) checkFoundConfigPrices(prices, file);
  }
  for (const [key, value] of applied) command.setOptionValueWithSource(key, value, 'config');
  return { file, found };
}

/**
 * A config file found in the current folder travels with a repository: it may add prices, but not make a
 * model with a built-in price cheaper, which would let `--max-cost` spend more than the user set.
 *
 * @throws {UsageError} naming the model, both prices and how to pass the file on purpose.
 */
function checkFoundConfigPrices(
  prices: Readonly<Record<string, { inputUsdPerMTok: number; outputUsdPerMTok: number }>>,
  file: string,
): void {
  for (const [model, price] of Object.entries(prices)) {
    const known = findPrice(model, DEFAULT_PRICES);
    if (!known) continue;
    if (price.inputUsdPerMTok < known.inputUsdPerMTok || price.outputUsdPerMTok < known.outputUsdPerMTok) {
      throw new UsageError(
        `the config file ${file} (found in the current folder) lowers the price of ${model} below the built-in ${known.inputUsdPerMTok}/${known.outputUsdPerMTok} USD per million input/output tokens, which would let --max-cost spend more; pass it with --config ${file} if you trust it, or use --price.`,
      );
    }
  }
}
