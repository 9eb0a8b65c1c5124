/**
 * `taoloop worker --restate`: serves the agent as a durable Restate workflow for the CLI's model and tools,
 * until SIGINT or SIGTERM (calls in flight are cancelled; Restate runs their attempts again elsewhere). Restate and the model adapters are loaded only when the command runs
 * (`worker-serve.ts`), so registering the command costs nothing.
 *
 * @module
 */

import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import {
  addToolOptions,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MODEL_TIMEOUT_MS,
  durationMs,
  portNumber,
  positiveInt,
  type WorkerCommandOptions,
} from '../options.js';

const port = portNumber;

/**
 * Adds `taoloop worker --restate [--port 9080] [--replicas n] [--register <admin-url>]` to `program`. The
 * action resolves (and calls `setExit(0)`) once SIGINT or SIGTERM has closed the worker; usage mistakes
 * throw the CLI's `UsageError`.
 */
export function registerWorkerCommand(program: Command, setExit: (code: number) => void): void {
  const command = program
    .command('worker')
    .description(
      'Serve the agent as a durable Restate workflow (one invocation per run; model calls, tool calls and approvals journaled).',
    )
    .option('--restate', 'serve over Restate (https://restate.dev), the only engine so far', false)
    .addOption(new Option('--port <n>', 'port to listen on').default(9080).argParser(port))
    .option(
      '--host <address>',
      'interface to listen on (0.0.0.0: reachable from other machines)',
      '127.0.0.1',
    )
    .addOption(
      new Option('--replicas <n>', 'worker processes behind one HTTP/2 balancer on --port')
        .default(1)
        .argParser(positiveInt),
    )
    .option('--name <service>', 'workflow name in Restate (default: taoloopAgent)')
    .option(
      '--register <admin-url>',
      'register with this Restate admin API once listening, e.g. http://127.0.0.1:9070',
    )
    .addOption(
      new Option(
        '-m, --model <spec>',
        'model (default: $TAOLOOP_MODEL, then the first provider whose API key is set, then a local Ollama, then the embedded model; see taoloop models)',
      ).env('TAOLOOP_MODEL'),
    )
    .addOption(
      new Option(
        '--max-steps <n>',
        'steps before a run stops without an answer (a request may ask for fewer or more)',
      )
        .default(8)
        .argParser(positiveInt)
        .env('TAOLOOP_MAX_STEPS'),
    )
    .addOption(
      new Option(
        '--model-timeout <duration>',
        'fail an attempt of a model call that gets no complete answer within this long (Restate retries it, then the run ends with an error): 90s, 2m, 500ms, or a number of seconds',
      )
        .default(DEFAULT_MODEL_TIMEOUT_MS, '2m')
        .argParser(durationMs)
        .env('TAOLOOP_MODEL_TIMEOUT'),
    )
    .addOption(
      new Option(
        '--max-output-tokens <n>',
        'cap on the tokens of one model turn; a longer turn is also cut on the worker, whatever the server does',
      )
        .default(DEFAULT_MAX_OUTPUT_TOKENS)
        .argParser(positiveInt)
        .env('TAOLOOP_MAX_OUTPUT_TOKENS'),
    )
    .addOption(
      new Option('--lang <code>', 'language of the labels and the prompt: en, pt, fr or id')
        .choices(['en', 'pt', 'fr', 'id'])
        .default('en')
        .env('TAOLOOP_LANG'),
    );
  addToolOptions(command).action(async (options: WorkerCommandOptions) => {
    if (!options.restate) {
      throw new UsageError('say which engine serves the runs: taoloop worker --restate [--port 9080].');
    }
    const tools = options.tools?.split(',').map((name) => name.trim()) ?? [];
    if (tools.includes('human')) {
      throw new UsageError(
        'the human tool needs a terminal, and a worker has none: leave it out of --tools.',
      );
    }
    const { serveWorker } = await import('./worker-serve.js');
    await serveWorker(options);
    setExit(0);
  });
}
