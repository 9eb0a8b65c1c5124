/**
 * Keeping the transcript inside the model's context window.
 *
 * When the messages would no longer fit, the oldest observations are replaced by a short marker first,
 * in chunks (see {@link fitEntries}). The system prompt, the question and the latest step are never
 * shortened; the trace keeps everything.
 *
 * @module
 */
import type { TranscriptEntry } from '../react/prompt.js';

/**
 * A rough token count: one token per 4 characters, the usual rule of thumb for English with BPE
 * tokenizers. It errs on the high side for code and on the low side for CJK text.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Per-message overhead of chat formats (role markers, separators), in tokens. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Share of the budget a transcript is shortened down to once it no longer fits, so that the following
 * steps fit again without shortening (and share their prompt prefix) for a while.
 */
export const SHORTEN_TO_SHARE = 0.6;
/** Share of the budget, from the start of the trajectory, whose steps are shortened only as a last resort. */
export const KEEP_FIRST_SHARE = 0.5;

/**
 * Returns `entries` shortened to fit `budgetTokens`, in a way that keeps a provider's prompt cache useful.
 *
 * A prompt cache (Anthropic's breakpoints, OpenAI's automatic prefix cache, the KV cache of llama.cpp
 * server or vLLM) reuses only the unchanged start of a prompt, so shortening one old observation per step
 * would make every request pay for its whole transcript again. Instead:
 *
 * - the steps that fit in the first {@link KEEP_FIRST_SHARE} of the budget stay as they are (the first
 *   findings, and a prefix every later request shares);
 * - when a request would pass the budget, the oldest observations after those are replaced by a marker
 *   until the transcript fits {@link SHORTEN_TO_SHARE} of the budget; the requests after it repeat that
 *   shortening and only append, until the budget is passed again;
 * - the latest entry is never shortened; if all else is not enough, the kept first steps are shortened
 *   too, and the result is as short as it can be.
 *
 * The decision is replayed over the entries in order, exactly as each earlier request made it, so it is
 * a pure function of the steps (a resumed or replayed run shortens the same way). `bench/prompt-prefix`
 * measures the prefix shared between consecutive requests.
 *
 * @param budgetTokens tokens available for the entries (window minus prompt, question and reply).
 */
export function fitEntries(entries: readonly TranscriptEntry[], budgetTokens: number): TranscriptEntry[] {
  const costs = entries.map(entryCost);
  let kept = 0;
  for (let sum = 0; kept < entries.length && sum + costs[kept]! <= budgetTokens * KEEP_FIRST_SHARE; kept++) {
    sum += costs[kept]!;
  }
  const fitted = entries.map((entry) => ({ ...entry }));
  let total = 0;
  /** Entries in [kept, shortenedBefore) have their observation shortened. */
  let shortenedBefore = kept;
  for (let latest = 0; latest < entries.length; latest++) {
    total += costs[latest]!;
    if (total <= budgetTokens) continue;
    for (; shortenedBefore < latest && total > budgetTokens * SHORTEN_TO_SHARE; shortenedBefore++) {
      total -= shorten(fitted, shortenedBefore);
    }
  }
  for (let i = 0; i < Math.min(kept, entries.length - 1) && total > budgetTokens; i++)
    total -= shorten(fitted, i);
  return fitted;
}

/** Replaces `entries[i]`'s observation by a marker; returns the tokens saved. */
function shorten(entries: TranscriptEntry[], i: number): number {
  const entry = entries[i]!;
  if (entry.observation === undefined || entry.observation.startsWith(MARKER_START)) return 0;
  const before = entryCost(entry);
  entries[i] = { ...entry, observation: `${MARKER_START}${entry.observation.length} characters]` };
  return before - entryCost(entries[i]!);
}

const MARKER_START = '[observation shortened to fit the context window: ';

function entryCost(entry: TranscriptEntry): number {
  return (
    estimateTokens(entry.modelText) +
    (entry.observation === undefined ? 0 : estimateTokens(entry.observation)) +
    2 * MESSAGE_OVERHEAD_TOKENS
  );
}

/**
 * Known context windows, in tokens, by model name prefix (providers' model pages, 2025). Used when
 * neither the caller nor the model says.
 */
const KNOWN_CONTEXT_WINDOWS: readonly [prefix: string, tokens: number][] = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4', 200_000],
  ['claude', 200_000],
  ['gemini-1.5', 1_048_576],
  ['gemini-2', 1_048_576],
  ['qwen2.5', 32_768],
  ['llama3.1', 131_072],
  ['llama-3.1', 131_072],
];

/** The context window of a model id like `openai:gpt-4o-mini`, or `undefined` when unknown. */
export function knownContextWindow(modelId: string): number | undefined {
  const name = (modelId.split('#').at(-1) ?? modelId).replace(/^[a-z-]+:/, '').toLowerCase();
  return KNOWN_CONTEXT_WINDOWS.find(([prefix]) => name.startsWith(prefix))?.[1];
}
