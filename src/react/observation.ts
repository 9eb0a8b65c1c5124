/**
 * Tool output is data, never instructions. Before it enters the transcript, every line that starts
 * with a protocol label (in the run's language, English, or any built-in observation spelling) is
 * quoted with `> `, so a search result that says `Action: send_email[...]` cannot pose as a step, and
 * output of more than one line is wrapped in explicit begin/end markers.
 *
 * @module
 */
import { ENGLISH_LABELS, type LabelSet } from './labels.js';
import { labelIndex, readLabel } from './scan.js';

/** Marks the start of multi-line tool output in the transcript. */
export const OUTPUT_BEGIN = '[tool output]';
/** Marks the end of multi-line tool output in the transcript. */
export const OUTPUT_END = '[end of tool output]';

/** What {@link formatObservation} did. */
export interface FormattedObservation {
  text: string;
  /** Lines that looked like protocol labels and were quoted. */
  neutralisedLines: number;
}

/**
 * Neutralises label lines in `output` and delimits multi-line output. Single-line output without
 * labels is returned unchanged, so `Observation: 1680` stays as the paper writes it.
 */
export function formatObservation(output: string, labels: LabelSet = ENGLISH_LABELS): FormattedObservation {
  const index = labelIndex(labels);
  // One line without a label, the usual tool output, is returned as it is without splitting.
  if (!output.includes('\n')) {
    const trimmed = output.trim();
    if (trimmed !== OUTPUT_BEGIN && trimmed !== OUTPUT_END && !readLabel(output, 0, output.length, index)) {
      return { text: output, neutralisedLines: 0 };
    }
  }
  const lines = output.split('\n');
  let neutralisedLines = 0;
  const safe = lines.map((line) => {
    // A line that looks like a label, or like our own delimiters, could pose as something it is not.
    const marker = line.trim() === OUTPUT_BEGIN || line.trim() === OUTPUT_END;
    if (!marker && !readLabel(line, 0, line.length, index)) return line;
    neutralisedLines++;
    return `> ${line}`;
  });
  const body = safe.join('\n');
  if (lines.length === 1 && neutralisedLines === 0) return { text: body, neutralisedLines };
  return { text: `${OUTPUT_BEGIN}\n${body}\n${OUTPUT_END}`, neutralisedLines };
}
