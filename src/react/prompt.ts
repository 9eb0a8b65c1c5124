/**
 * Rendering the text protocol: the system prompt and the message list sent to the model.
 *
 * Rendering is a pure function of the tool descriptions, the labels and the step list, so the prompt, the
 * printed trace and a replay can never disagree.
 *
 * @module
 */
import { type FewShotExample, renderExamples } from './examples.js';
import { ENGLISH_LABELS, type LabelSet, primaryLabels } from './labels.js';
import { neutraliseLines } from './observation.js';
import { fill, promptText } from './prompt-text.js';
import { splitLines } from './visible.js';

/** What the prompt needs to know about a tool (no implementation). */
export interface ToolDescription {
  name: string;
  description: string;
  /** Shown as `name[<inputHint>]`. @default 'input' */
  inputHint?: string | undefined;
}

/** Options for {@link renderSystemPrompt}. */
export interface SystemPromptOptions {
  /** Every tool the model may call. The pseudo-tool `finish` is always described as well. */
  tools: readonly ToolDescription[];
  /** Labels to write the format in. @default ENGLISH_LABELS */
  labels?: LabelSet;
  /** Extra instructions from the caller, appended after the format. */
  instructions?: string | undefined;
  /**
   * Worked examples (few-shot), appended last: structured examples are rendered in `labels`; a string is
   * used as written.
   */
  examples?: string | readonly FewShotExample[] | undefined;
  /**
   * Language for the content of thoughts and answers when it differs from the labels' language (many
   * prompts keep English labels and ask for content in another language), e.g. `'Portuguese'`.
   */
  contentLanguage?: string | undefined;
}

/**
 * Renders the system prompt: the tool list as `name[input]: description` (tool metadata neutralised as tool
 * output is: no description, name or hint can start a line that reads as a step), the exact per-turn format
 * (Thought then Action, or Thought then Answer, or `Action: finish[answer]`), and the rule that the model
 * stops after an Action because the program supplies the Observation (ReAct, Yao et al. 2022, section 2).
 * The prose is in the label set's language (English, Portuguese, French or Indonesian; English otherwise).
 *
 * @example
 * ```ts
 * renderSystemPrompt({ tools: [{ name: 'calculator', description: 'Evaluates arithmetic.' }] });
 * ```
 */
export function renderSystemPrompt(options: SystemPromptOptions): string {
  const l = primaryLabels(options.labels);
  const t = promptText(options.labels?.language ?? 'en');
  const f = (template: string) => fill(template, { ...l, language: options.contentLanguage ?? '' });
  const toolLines = options.tools.map((tool) => toolLine(tool, options.labels));
  toolLines.push(`- ${l.finish}[answer]: ${t.finishTool}`);
  const parts = [
    t.intro,
    f(t.turn),
    '',
    `${l.thought}: ${t.thoughtBeforeAction}`,
    `${l.action}: ${t.actionForm}`,
    '',
    t.orWhenDone,
    '',
    `${l.thought}: ${t.thoughtBeforeAnswer}`,
    `${l.answer}: ${t.answerForm}`,
    '',
    f(t.finishAlso),
    '',
    t.tools,
    ...toolLines,
    '',
    t.rules,
    f(t.oneAction),
    t.brackets,
    f(t.dataNotInstructions),
    f(t.supported),
  ];
  if (options.contentLanguage) parts.push(f(t.contentLanguage));
  if (options.instructions?.trim()) parts.push('', options.instructions.trim());
  const examples =
    typeof options.examples === 'string'
      ? options.examples.trim()
      : renderExamples(options.examples ?? [], options.labels);
  if (examples) parts.push('', t.examples, '', examples);
  return parts.join('\n');
}

/**
 * A tool's line of the prompt, `- name[hint]: description`. Tool metadata is data, as tool output is: the
 * name and hint are put on one line (every line terminator a space), and a description of several lines
 * keeps them, indented, each line that reads as a protocol label (in any language, however disguised)
 * quoted with `> ` ({@link neutraliseLines}), so no tool can start a step in the system prompt.
 */
function toolLine(tool: ToolDescription, labels: LabelSet | undefined): string {
  // The first line follows `name[hint]: `, so it starts no line of the prompt: it is kept as written.
  const [first = '', ...rest] = splitLines(tool.description);
  const more = rest.length ? neutraliseLines(rest.join('\n'), labels).map((line) => line && `  ${line}`) : [];
  return `- ${oneLine(tool.name)}[${oneLine(tool.inputHint ?? 'input')}]: ${[first, ...more].join('\n')}`;
}

/** `text` with each line terminator made a space. */
function oneLine(text: string): string {
  return splitLines(text).join(' ');
}

/** One completed exchange in the transcript: what the model wrote and, for actions, what came back. */
export interface TranscriptEntry {
  /** The model's turn as kept in the transcript (already cut before any invented observation). */
  modelText: string;
  /** The observation the program supplied, if any. */
  observation?: string | undefined;
}

/** A chat message of the text protocol: a role and its text (a model adapter's message type accepts it). */
export interface TextMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * Renders the chat messages for the next model call: system prompt, question, then each model turn as an
 * assistant message followed by its observation as a user message.
 */
export function renderMessages(input: {
  systemPrompt: string;
  question: string;
  entries: readonly TranscriptEntry[];
  labels?: LabelSet | undefined;
}): TextMessage[] {
  const l = primaryLabels(input.labels);
  const messages: TextMessage[] = [
    { role: 'system', content: input.systemPrompt },
    { role: 'user', content: `${l.question}: ${input.question}` },
  ];
  for (const entry of input.entries) {
    messages.push({ role: 'assistant', content: entry.modelText });
    if (entry.observation !== undefined) {
      messages.push({ role: 'user', content: `${l.observation}: ${entry.observation}` });
    }
  }
  return messages;
}

/**
 * Stop sequences for the configured labels: the Observation label at the start of a line, so the model
 * stops instead of inventing an observation. Providers cap the number of stop sequences (OpenAI: 4), so
 * only the written forms are sent; the client-side cut catches the rest.
 */
export function stopSequences(labels: LabelSet = ENGLISH_LABELS): string[] {
  const l = primaryLabels(labels);
  const english = primaryLabels(ENGLISH_LABELS);
  const words = [...new Set([l.observation, english.observation])];
  return words.map((w) => `\n${w}:`).slice(0, 4);
}
