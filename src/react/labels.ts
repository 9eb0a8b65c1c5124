/**
 * Protocol label sets. English is always accepted as well as the configured language.
 *
 * @module
 */

/**
 * The words of the ReAct protocol in one language. The first entry of each list is the one the prompt
 * writes; the others are accepted when parsing.
 */
export interface LabelSet {
  /** BCP 47-ish language code: `en`, `pt`, `fr`, `id`. */
  language: string;
  thought: readonly string[];
  action: readonly string[];
  /** Second line of the two-line form `Action: tool` + `Action Input: input`. */
  actionInput: readonly string[];
  observation: readonly string[];
  answer: readonly string[];
  /** The pseudo-tool that ends the episode, as in the paper: `finish[answer]`. */
  finish: readonly string[];
  /** The word that introduces the user's question. */
  question: readonly string[];
}

/** English labels (the paper's). */
export const ENGLISH_LABELS: LabelSet = {
  language: 'en',
  thought: ['Thought'],
  action: ['Action'],
  actionInput: ['Action Input'],
  observation: ['Observation'],
  answer: ['Answer', 'Final Answer', 'FinalAnswer', 'Final_Answer'],
  finish: ['finish'],
  question: ['Question'],
};

/**
 * Portuguese labels. `Acao` (no accents) is listed because models often drop them; the parser also
 * matches labels accent-insensitively. The pseudo-tool stays `finish`, as in the paper.
 */
export const PORTUGUESE_LABELS: LabelSet = {
  language: 'pt',
  thought: ['Pensamento'],
  action: ['Ação', 'Acao'],
  actionInput: ['Entrada da Ação', 'Entrada da Acao'],
  observation: ['Observação', 'Observacao'],
  answer: ['Resposta', 'Resposta Final'],
  finish: ['finish'],
  question: ['Pergunta'],
};

/** French labels. `Pensée` is accepted next to `Réflexion`; French typography (`Action :`) parses too. */
export const FRENCH_LABELS: LabelSet = {
  language: 'fr',
  thought: ['Réflexion', 'Pensée'],
  action: ['Action'],
  actionInput: ["Entrée de l'action", 'Entrée de l’action', "Entrée d'action"],
  observation: ['Observation'],
  answer: ['Réponse', 'Réponse finale'],
  finish: ['finish'],
  question: ['Question'],
};

/**
 * Indonesian labels. Models prompted in Indonesian often keep the English Thought/Action/Observation and
 * write only `Jawaban:` for the answer; {@link mergeLabels} makes that mix parse.
 */
export const INDONESIAN_LABELS: LabelSet = {
  language: 'id',
  thought: ['Pikiran'],
  action: ['Tindakan', 'Aksi'],
  actionInput: ['Masukan Tindakan', 'Input Tindakan'],
  observation: ['Observasi', 'Pengamatan'],
  answer: ['Jawaban', 'Jawaban Akhir'],
  finish: ['finish'],
  question: ['Pertanyaan'],
};

/** Language codes with a built-in label set. */
export type LabelLanguage = 'en' | 'pt' | 'fr' | 'id';

/** The built-in label sets, keyed by language code. */
export const LABEL_SETS: Readonly<Record<LabelLanguage, LabelSet>> = {
  en: ENGLISH_LABELS,
  pt: PORTUGUESE_LABELS,
  fr: FRENCH_LABELS,
  id: INDONESIAN_LABELS,
};

/**
 * Returns a set that accepts the words of `set` and, after them, the English ones (duplicates removed).
 * The first entry of each list is still `set`'s, so a prompt rendered from the result is unchanged.
 *
 * @example
 * ```ts
 * mergeLabels(INDONESIAN_LABELS).answer; // ['Jawaban', 'Jawaban Akhir', 'Answer', 'Final Answer', ...]
 * ```
 */
export function mergeLabels(set: LabelSet): LabelSet {
  const merge = (own: readonly string[], english: readonly string[]) => [...new Set([...own, ...english])];
  const en = ENGLISH_LABELS;
  return {
    language: set.language,
    thought: merge(set.thought, en.thought),
    action: merge(set.action, en.action),
    actionInput: merge(set.actionInput, en.actionInput),
    observation: merge(set.observation, en.observation),
    answer: merge(set.answer, en.answer),
    finish: merge(set.finish, en.finish),
    question: merge(set.question, en.question),
  };
}

/** The first (written) form of each label. */
export function primaryLabels(labels: LabelSet = ENGLISH_LABELS): PrimaryLabels {
  // Called for every request: computed once per label set.
  const cached = primaryCache.get(labels);
  if (cached) return cached;
  const first = (list: readonly string[], fallback: string) => list[0] ?? fallback;
  const primary: PrimaryLabels = Object.freeze({
    thought: first(labels.thought, 'Thought'),
    action: first(labels.action, 'Action'),
    observation: first(labels.observation, 'Observation'),
    answer: first(labels.answer, 'Answer'),
    finish: first(labels.finish, 'finish'),
    question: first(labels.question, 'Question'),
  });
  primaryCache.set(labels, primary);
  return primary;
}

/** The first spelling of each label: what taoloop writes. */
export interface PrimaryLabels {
  readonly thought: string;
  readonly action: string;
  readonly observation: string;
  readonly answer: string;
  readonly finish: string;
  readonly question: string;
}

const primaryCache = new WeakMap<LabelSet, PrimaryLabels>();
