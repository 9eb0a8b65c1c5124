/**
 * Keeping the transcript inside the model's context window.
 *
 * When the messages would no longer fit, the oldest observations are replaced by a short marker first.
 * The system prompt, the question and the latest step are never shortened; the trace keeps everything.
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
 * Returns `entries` shortened to fit `budgetTokens`: the oldest observations (never the latest entry's)
 * are replaced by a marker until the total fits. If even that is not enough, the result is as short as
 * it can be without touching the latest step.
 *
 * @param budgetTokens tokens available for the entries (window minus prompt, question and reply).
 */
export function fitEntries(entries: readonly TranscriptEntry[], budgetTokens: number): TranscriptEntry[] {
  const cost = (e: TranscriptEntry) =>
    estimateTokens(e.modelText) +
    (e.observation === undefined ? 0 : estimateTokens(e.observation)) +
    2 * MESSAGE_OVERHEAD_TOKENS;
  let total = entries.reduce((sum, e) => sum + cost(e), 0);
  const fitted = entries.map((e) => ({ ...e }));
  for (let i = 0; i < fitted.length - 1 && total > budgetTokens; i++) {
    const entry = fitted[i]!;
    if (entry.observation === undefined) continue;
    const before = cost(entry);
    entry.observation = `[observation shortened to fit the context window: ${entry.observation.length} characters]`;
    total -= before - cost(entry);
  }
  return fitted;
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
