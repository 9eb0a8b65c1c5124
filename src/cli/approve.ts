/**
 * Approval at the terminal: `yes / no / edit` for each tool call with side effects. With no terminal
 * (CI, pipes) every such call is rejected unless `--yes` or `--allow TOOL` said otherwise.
 *
 * @module
 */
import { createInterface } from 'node:readline/promises';
import pc from 'picocolors';
import type { ApprovalDecision, ApprovalRequest, ApproveFn } from '../agent/types.js';

/** Streams the prompt talks to; the terminal's by default. */
export interface TerminalApprovalOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
}

/** An {@link ApproveFn} that asks at the terminal, or rejects when there is none. */
export function terminalApprover(options: TerminalApprovalOptions = {}): ApproveFn {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  return async (request) => {
    if (!input.isTTY) {
      return {
        type: 'reject',
        reason: `no terminal to ask for approval of ${request.tool} (${request.effects}); rerun with --allow ${request.tool} or --yes`,
      };
    }
    return ask(request, input, output);
  };
}

async function ask(
  request: ApprovalRequest,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<ApprovalDecision> {
  const rl = createInterface({ input, output, terminal: true });
  // readline in raw mode catches Ctrl-C itself; pass it on so it stops the run as it does elsewhere.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  const abort = () => rl.close();
  request.signal?.addEventListener('abort', abort, { once: true });
  try {
    output.write(
      pc.yellow(
        `\nThe model wants to run ${pc.bold(`${request.tool}[${request.input}]`)} (effects: ${request.effects}).\n`,
      ),
    );
    for (;;) {
      const answer = (await rl.question('Allow it? [y]es / [n]o / [e]dit: ')).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return { type: 'approve' };
      if (answer === 'n' || answer === 'no' || answer === '') return { type: 'reject' };
      if (answer === 'e' || answer === 'edit') {
        const edited = await rl.question(`New input for ${request.tool}: `);
        return { type: 'edit', input: edited };
      }
      output.write('Please answer y, n or e.\n');
    }
  } catch {
    return { type: 'reject', reason: 'the prompt was closed' };
  } finally {
    request.signal?.removeEventListener('abort', abort);
    rl.close();
  }
}
