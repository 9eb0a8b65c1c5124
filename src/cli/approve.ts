/**
 * Approval at the terminal: `yes / no / edit` for each tool call with side effects. With no terminal
 * (CI, pipes) every such call is rejected unless `--yes` or `--allow TOOL` said otherwise. Ctrl-C at the
 * prompt stops the run (it is not a "no"); the tool and input are shown on one line through {@link safeLine}
 * (a newline as `⏎`, control characters as visible escapes), so the model cannot make the prompt show
 * another action than the one being approved.
 *
 * @module
 */
import { createInterface } from 'node:readline/promises';
import pc from 'picocolors';
import type { ApprovalDecision, ApprovalRequest, ApproveFn } from '../agent/types.js';
import { type ApprovalMessages, CLI_MESSAGES, fill } from './i18n.js';
import { interruptRun } from './interrupt.js';
import { safeLine } from './safe-text.js';

/** Streams the prompt talks to; the terminal's by default. */
export interface TerminalApprovalOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
  /** Called on Ctrl-C at the prompt. @default {@link interruptRun}: stop the run in progress */
  onInterrupt?: () => void;
  /** The prompt's words (`--lang`). @default English */
  messages?: ApprovalMessages;
}

/** The rejection reason when Ctrl-C stopped the run at the prompt. */
export const INTERRUPTED_AT_PROMPT = 'interrupted (Ctrl-C): the run stops';

/** An {@link ApproveFn} that asks at the terminal, or rejects when there is none. */
export function terminalApprover(options: TerminalApprovalOptions = {}): ApproveFn {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const onInterrupt = options.onInterrupt ?? (() => interruptRun('ctrl-c'));
  const messages = options.messages ?? CLI_MESSAGES.en.approval;
  return async (request) => {
    if (!input.isTTY) {
      return {
        type: 'reject',
        reason: fill(messages.noTerminal, { tool: request.tool, effects: request.effects }),
      };
    }
    return ask(request, input, output, onInterrupt, messages);
  };
}

async function ask(
  request: ApprovalRequest,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  onInterrupt: () => void,
  messages: ApprovalMessages,
): Promise<ApprovalDecision> {
  if (request.signal?.aborted) return { type: 'reject', reason: INTERRUPTED_AT_PROMPT };
  const rl = createInterface({ input, output, terminal: true });
  // readline in raw mode catches Ctrl-C itself: stop the run, and stop asking.
  const interrupted = new AbortController();
  rl.on('SIGINT', () => {
    interrupted.abort();
    onInterrupt();
  });
  const signal = request.signal ? AbortSignal.any([request.signal, interrupted.signal]) : interrupted.signal;
  // A closed input (Ctrl-D) never settles a pending question: race it against the close.
  const closed = new Promise<never>((_, reject) => {
    rl.once('close', () => reject(new Error('the prompt was closed')));
  });
  closed.catch(() => undefined);
  const question = (text: string) => Promise.race([rl.question(text, { signal }), closed]);
  try {
    // One line: a newline in the input shows as ⏎, so the input cannot draw a question or answer of its own.
    const action = `${safeLine(request.tool)}[${safeLine(request.input)}]`;
    const wants = fill(messages.wants, { action: pc.bold(action), effects: safeLine(request.effects) });
    output.write(pc.yellow(`\n${wants}\n`));
    // Only an exact yes word (the language's, or English) approves; the English words always work.
    const english = CLI_MESSAGES.en.approval;
    const is = (answer: string, words: readonly string[], always: readonly string[]) =>
      words.includes(answer) || always.includes(answer);
    for (;;) {
      const answer = (await question(messages.ask)).trim().toLowerCase();
      if (is(answer, messages.yes, english.yes)) return { type: 'approve' };
      if (answer === '' || is(answer, messages.no, english.no)) return { type: 'reject' };
      if (is(answer, messages.edit, english.edit)) {
        const edited = await question(fill(messages.newInput, { tool: safeLine(request.tool) }));
        return { type: 'edit', input: edited };
      }
      output.write(`${messages.again}\n`);
    }
  } catch {
    if (signal.aborted) return { type: 'reject', reason: INTERRUPTED_AT_PROMPT };
    return { type: 'reject', reason: 'the prompt was closed' };
  } finally {
    rl.close();
  }
}
