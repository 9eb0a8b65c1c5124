/**
 * The workload shared by `eval-throughput` and `restate-eval` (this folder's `index.ts` is the former): a
 * synthetic QA dataset whose every item is one ReAct episode of exactly two model calls, and the scripted
 * replies of the 200 ms model server.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Dataset } from '../../src/eval/datasets.js';

/** The local model server's wait before each answer, in milliseconds. */
export const DELAY_MS = 200;
/** Model calls per item: `search[Ada Lovelace]`, then `finish[London]`. */
export const CALLS_PER_ITEM = 2;

/** The scripted model: search first, then finish, whatever the question. */
export function twoCallReply(request: { messages: Array<{ role: string }> }): string {
  return request.messages.some((message) => message.role === 'assistant')
    ? 'Thought: She was born in London.\nAction: finish[London]'
    : 'Thought: I need to search Ada Lovelace.\nAction: search[Ada Lovelace]';
}

/** `count` distinct questions with the same answer. */
export function syntheticDataset(count: number): Dataset {
  return {
    name: 'bench-synthetic',
    kind: 'qa',
    items: Array.from({ length: count }, (_, i) => ({
      id: `q${i + 1}`,
      question: `In which city was Ada Lovelace born? (item ${i + 1})`,
      answer: 'London',
    })),
  };
}

/** A running model server child process. */
export interface ModelServer {
  baseURL: string;
  close(): Promise<void>;
}

/**
 * Starts `model-server.ts` in a child process (its own process group's member: `bench/run.ts` kills the
 * whole group on a timeout) and resolves with its base URL.
 */
export async function startModelServer(): Promise<ModelServer> {
  const script = fileURLToPath(new URL('./model-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const baseURL = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`the model server exited (${code}) before it listened`)));
  });
  return {
    baseURL,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}
