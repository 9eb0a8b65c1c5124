/**
 * Approval at the terminal: `yes / no / edit` for each tool call with side effects. With no terminal
 * (CI, pipes) every such call is rejected unless `--yes` or `--allow TOOL` said otherwise. Ctrl-C at the
 * prompt stops the run (it is not a "no"); the tool and input are shown through {@link safeText}, so the
 * model cannot make the prompt show another action than the one being approved.
 *
 * @module
 */
import { createInterface } from 'node:readline/promises';
import pc from 'picocolors';
import type { ApprovalDecision, ApprovalRequest, ApproveFn } from '../agent/types.js';
import { interruptRun } from './interrupt.js';
import { safeText } from './safe-text.js';

/** Streams the prompt talks to; the terminal's by default. */
export interface TerminalApprovalOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
  /** Called on Ctrl-C at the prompt. @default {@link interruptRun}: stop the run in progress */
  onInterrupt?: () => void;
}

/** The rejection reason when Ctrl-C stopped the run at the prompt. */
export const INTERRUPTED_AT_PROMPT = 'interrupted (Ctrl-C): the run stops';

/** An {@link ApproveFn} that asks at the terminal, or rejects when there is none. */
export function terminalApprover(options: TerminalApprovalOptions = {}): ApproveFn {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const onInterrupt = options.onInterrupt ?? (() => interruptRun('ctrl-c'));
  return async (request) => {
    if (!input.isTTY) {
      return {
        type: 'reject',
        reason: `no terminal to ask for approval of ${request.tool} (${request.effects}); rerun with --allow ${request.tool} or --yes`,
      };
    }
    return ask(request, input, output, onInterrupt);
  };
}

async function ask(
  request: ApprovalRequest,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  onInterrupt: () => void,
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
    const action = safeText(`${request.tool}[${request.input}]`);
    output.write(
      pc.yellow(`\nThe model wants to run ${pc.bold(action)} (effects: ${safeText(request.effects)}).\n`),
    );
    for (;;) {
      const answer = (await question('Allow it? [y]es / [n]o / [e]dit: ')).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return { type: 'approve' };
      if (answer === 'n' || answer === 'no' || answer === '') return { type: 'reject' };
      if (answer === 'e' || answer === 'edit') {
        const edited = await question(`New input for ${safeText(request.tool)}: `);
        return { type: 'edit', input: edited };
      }
      output.write('Please answer y, n or e.\n');
    }
  } catch {
    if (signal.aborted) return { type: 'reject', reason: INTERRUPTED_AT_PROMPT };
    return { type: 'reject', reason: 'the prompt was closed' };
  } finally {
    rl.close();
  }
}
