/**
 * `taoloop chat`: a conversation at the terminal. Each question is one run of a session
 * ({@link createSession}) whose store is the runs folder ({@link createFileStore}): every run's trace is
 * linked to the conversation id, so `taoloop runs`, `trace`, `replay` and `run --continue <id|last>` read
 * it like any run. The options, the live trace and Ctrl-C are `run`'s: Ctrl-C stops the answer in progress
 * (a second one quits at once), and the conversation goes on; SIGTERM or SIGHUP stops it too, then ends the
 * chat (exit code 1). `/new` starts a new conversation; `/exit` or
 * Ctrl-D leaves (exit code 0). `--continue <id|last>` starts from a recorded run's conversation.
 *
 * @module
 */
import { createInterface, type Interface } from 'node:readline';
import pc from 'picocolors';
import { type ConversationStore, createSession, type Session } from '../../agent/session.js';
import { createFileStore } from '../../trace/conversation-store.js';
import { runsFolder } from '../../trace/runs.js';
import { errorMessage } from '../../util/own.js';
import { terminalApprover } from '../approve.js';
import { type ContinuedConversation, continuedConversation } from '../continue.js';
import { EXIT, UsageError } from '../errors.js';
import type { RunCommandOptions } from '../options.js';
import { safeText } from '../safe-text.js';
import { type PrepareContext, type PreparedRun, prepareAgent } from '../setup.js';
import { onStopSignals } from '../signals.js';
import { consumeRun, onInterrupts, terminalOutput, warnTraceFailed } from './run.js';

/** Runs the conversation until `/exit` or the end of input, and returns the exit code (0). */
export async function chatCommand(
  options: RunCommandOptions,
  context: Omit<PrepareContext, 'command' | 'cwd'>,
): Promise<number> {
  if (options.json) {
    throw new UsageError(
      'chat is a conversation at the terminal and has no --json; for one JSON result per question use taoloop run --json --continue last.',
    );
  }
  if (options.trace !== undefined) {
    throw new UsageError(
      "chat writes each question's trace to the runs folder, linked to the conversation; --trace FILE is for taoloop run.",
    );
  }
  const cwd = process.cwd();
  const prepared = await prepareAgent(options, { ...context, command: 'chat', cwd });
  const continued =
    options.continue === undefined ? undefined : continuedConversation(options.continue, cwd, process.env);
  const files = createFileStore(runsFolder(cwd, process.env), {
    meta: prepared.meta,
    onError: (error) => warnTraceFailed(prepared.messages, error),
  });
  const store = continued ? startingWith(files, continued) : files;
  const words = prepared.messages.chat;
  const say = (text: string) => process.stderr.write(`${pc.dim(text)}\n`);
  const start = (template: string, conversationId?: string): Session => {
    const session = createSession({
      ...prepared.agent,
      store,
      ...(conversationId !== undefined && { conversationId }),
    });
    say(fill(template, session.conversationId));
    return session;
  };
  let session = start(words.intro, continued?.conversationId);
  let asked = false;
  let exitCode: number = EXIT.answered;
  const lines = lineReader(() => say(words.howToLeave));
  try {
    for (;;) {
      const line = await lines.next('> ');
      if (line === undefined) break;
      const text = line.trim();
      if (text === '') continue;
      if (text === '/exit') break;
      if (text === '/new') {
        if (asked) say(fill(words.followUp, session.conversationId));
        session = start(words.newConversation);
        asked = false;
        continue;
      }
      if (/^\/[a-z]+$/i.test(text)) {
        say(fill(words.unknownCommand, session.conversationId).replace('{command}', safeText(text)));
        continue;
      }
      asked = true;
      // SIGTERM or SIGHUP (`kill`, `docker stop`, a closed terminal) stops the answer as Ctrl-C does, then
      // ends the chat, as they end `run`: exit 1. Ctrl-C only stops the answer.
      const terminated = await askInSession(session, text, prepared, options);
      if (terminated) {
        exitCode = EXIT.noAnswer;
        break;
      }
    }
  } finally {
    lines.close();
  }
  if (asked) say(fill(words.followUp, session.conversationId));
  return exitCode;
}

/**
 * One question: the session's run, drained like `run`'s (live trace, spinner, approvals at the terminal,
 * Ctrl-C). A run that fails is reported and the conversation goes on; a caller mistake ends the chat.
 * Resolves with true when SIGTERM or SIGHUP stopped the run (the chat should end), else false.
 */
async function askInSession(
  session: Session,
  question: string,
  prepared: PreparedRun,
  options: RunCommandOptions,
): Promise<boolean> {
  let terminated = false;
  const stopTerminations = onStopSignals((signal) => {
    if (signal !== 'SIGINT') terminated = true;
  });
  const controller = new AbortController();
  // The store writes the trace, so there is none here for a second Ctrl-C to note.
  const stopInterrupts = onInterrupts(
    controller,
    prepared.messages.stopping,
    () => undefined,
    prepared.messages,
  );
  const { spinner, render } = terminalOutput(prepared, options);
  try {
    await consumeRun(
      session.stream(question, {
        approve: terminalApprover({ messages: prepared.messages.approval }),
        signal: controller.signal,
      }),
      {
        openTrace: () => undefined,
        render,
        spinner,
        thinking: prepared.messages.thinking,
      },
    );
  } catch (error) {
    if (error instanceof UsageError) throw error;
    process.stderr.write(
      `taoloop: ${prepared.messages.runFailed.replace('{detail}', safeText(errorMessage(error)))}\n`,
    );
  } finally {
    spinner.stop();
    stopInterrupts();
    stopTerminations();
  }
  return terminated;
}

/**
 * `store`, except that the first load of the continued conversation gives the recorded run's conversation
 * (as `run --continue` does), even when that run is not its conversation's newest or has no conversation id.
 */
function startingWith(store: ConversationStore, continued: ContinuedConversation): ConversationStore {
  let first = true;
  return {
    record: (id, event) => store.record(id, event),
    async load(id) {
      if (first && id === continued.conversationId) {
        first = false;
        return [...continued.earlier];
      }
      return store.load(id);
    },
  };
}

/** `{id}` in `template` replaced by `id`. */
function fill(template: string, id: string): string {
  return template.replace('{id}', id);
}

/** Reads the person's lines: `next` resolves with one line, or undefined at the end of input (Ctrl-D). */
interface LineReader {
  next(prompt: string): Promise<string | undefined>;
  close(): void;
}

/**
 * At a terminal, a fresh readline interface per question (closed while the run goes, so the approval prompt
 * and the human tool have the terminal to themselves; earlier questions stay in the history for the arrow
 * keys); Ctrl-C at the prompt calls `onCtrlC` and asks again. Without a terminal (a pipe), one interface
 * for all lines, so none that arrived together is lost.
 */
function lineReader(onCtrlC: () => void): LineReader {
  const input = process.stdin;
  const output = process.stdout;
  if (!input.isTTY) {
    const rl = createInterface({ input, terminal: false });
    const iterator = rl[Symbol.asyncIterator]();
    return {
      async next() {
        const line = await iterator.next();
        return line.done ? undefined : line.value;
      },
      close: () => rl.close(),
    };
  }
  let history: string[] = [];
  return {
    next(prompt) {
      return new Promise((resolve) => {
        const rl: Interface = createInterface({ input, output, terminal: true, history, historySize: 100 });
        let settled = false;
        const settle = (line: string | undefined) => {
          if (settled) return;
          settled = true;
          rl.close();
          resolve(line);
        };
        rl.on('history', (updated: string[]) => {
          history = updated;
        });
        rl.on('line', settle);
        rl.on('close', () => settle(undefined));
        rl.on('SIGINT', () => {
          output.write('\n');
          onCtrlC();
          rl.write(null, { ctrl: true, name: 'u' });
          rl.prompt();
        });
        rl.setPrompt(prompt);
        rl.prompt();
      });
    },
    close: () => undefined,
  };
}
