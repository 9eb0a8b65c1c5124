/**
 * `taoloop serve`: starts the web playground (src/web/server.ts, loaded only when the command runs) and
 * keeps it up until Ctrl-C.
 *
 * @module
 */

import { type Command, Option } from 'commander';
import type { ModelPrice } from '../../models/pricing.js';
import { messagesLangOption, portNumber, positiveInt, pricePair } from '../options.js';
import { onStopSignals, signalExitCode } from '../signals.js';

/** Options of `taoloop serve`, as commander parses them. */
interface ServeCommandOptions {
  port: number;
  host?: string;
  model?: string[];
  tools?: string;
  docs?: string;
  root?: string;
  wikiCorpus?: string;
  runsDir?: string;
  testsDir?: string;
  price?: ModelPrice;
  browserModel?: string;
  maxRuns?: number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Adds `taoloop serve [--port 7777] [--host 127.0.0.1]` to `program`. The command resolves when the
 * server has been stopped (SIGINT / SIGTERM / SIGHUP) and reports exit code 0 through `setExit`.
 *
 * @throws {UsageError} (from the action) for a bad tool list, or a port or host that cannot be bound.
 */
export function registerServeCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description('Start the web playground: run questions in the browser and watch each step arrive.')
    .addOption(
      new Option('-p, --port <n>', 'port to listen on (0 picks a free one)')
        .default(7777)
        .argParser(portNumber),
    )
    .option(
      '--host <host>',
      'address to bind (default: 127.0.0.1); anything but loopback lets other machines reach it, so the API then needs the access token in the printed URL',
    )
    .option(
      '-m, --model <spec>',
      'a model the page offers (repeatable; $TAOLOOP_MODEL or the first provider with an API key is added)',
      collect,
      [] as string[],
    )
    .option(
      '-t, --tools <list>',
      'tools the page offers (default: calculator, plus search when --docs is given)',
    )
    .option('-d, --docs <dir>', 'folder of .md/.txt/.json/.jsonl documents for the search tool')
    .option(
      '--browser-model <gguf>',
      'a GGUF file or http(s) URL the page runs itself (llama.cpp in WebAssembly), with the calculator and search over --docs',
    )
    .option('--root <dir>', 'folder that read_file and run_tests work in')
    .option('--wiki-corpus <file>', 'JSONL of {title, text} pages for the wikipedia tool')
    .option('--runs-dir <dir>', 'where run traces are written and read back (default: the runs folder)')
    .option(
      '--tests-dir <dir>',
      'where the page\'s "Save as test" writes a run as a fixture for taoloop test (default: taoloop-tests)',
    )
    .addOption(
      new Option(
        '--max-runs <n>',
        'runs in progress at once; the page is told to wait when one more is asked for (default: 4)',
      ).argParser(positiveInt),
    )
    .addOption(
      new Option(
        '--price <in/out>',
        "the offered models' price in USD per million input/output tokens, e.g. 0.15/0.60, for the page's cost (default: the built-in prices of known hosted models)",
      )
        .argParser(pricePair)
        .env('TAOLOOP_PRICE'),
    )
    .addOption(messagesLangOption())
    .action(async (options: ServeCommandOptions) => {
      setExit(await serve(options));
    });
}

async function serve(options: ServeCommandOptions): Promise<number> {
  const { UsageError } = await import('../errors.js');
  if (options.tools?.split(',').some((name) => name.trim() === 'human'))
    throw new UsageError('the human tool asks at the terminal, so the playground cannot offer it.');
  const { buildCliTools } = await import('../tools.js');
  const tools = await buildCliTools(options);
  const { startPlayground } = await import('../../web/server.js');
  let playground: Awaited<ReturnType<typeof startPlayground>>;
  try {
    playground = await startPlayground({
      port: options.port,
      models: options.model ?? [],
      tools,
      ...(options.host !== undefined && { host: options.host }),
      ...(options.runsDir !== undefined && { runsDir: options.runsDir }),
      ...(options.testsDir !== undefined && { testsDir: options.testsDir }),
      // The folders the tools were given: `taoloop test` needs them to replay a saved run.
      testFlags: [
        ...(options.docs !== undefined ? ['--docs', options.docs] : []),
        ...(options.root !== undefined ? ['--root', options.root] : []),
        ...(options.wikiCorpus !== undefined ? ['--wiki-corpus', options.wikiCorpus] : []),
      ],
      ...(options.maxRuns !== undefined && { maxRuns: options.maxRuns }),
      ...(options.price !== undefined && { price: options.price }),
      ...(options.browserModel !== undefined && { browserModel: options.browserModel }),
      ...(options.browserModel !== undefined &&
        options.docs !== undefined &&
        tools.some((tool) => tool.name === 'search') && {
          browserDocuments: await (await import('../../tools/search.js')).readDocuments(options.docs),
        }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${options.port} is in use: pick another with --port.`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`cannot listen on ${options.host}: no such address on this machine.`);
    throw error;
  }
  // Ctrl-C, SIGTERM or SIGHUP: runs in progress are stopped (their traces end with `run-end`), then exit 0.
  // A second signal quits at once (130, 143, 129), each unfinished run's trace ending with a `run-error`
  // line that says so. Listening before the address is printed: whoever reads it may signal at once.
  let signals = 0;
  let stopSignals = () => {};
  const stopped = new Promise<void>((resolve) => {
    stopSignals = onStopSignals((signal) => {
      signals += 1;
      if (signals === 1) return resolve();
      const what = signal === 'SIGINT' ? 'Ctrl-C' : signal;
      playground.quitting(`interrupted twice (${what}): quit at once`);
      process.exit(signalExitCode(signal));
    });
  });
  process.stdout.write(`taoloop playground: ${playground.url}  (Ctrl-C to stop)\n`);
  if (playground.token !== undefined)
    process.stdout.write(
      'The address ends in an access token: the API refuses every call without it. Anyone who has it can run the model and its tools here; share it only with people you trust.\n',
    );
  await stopped;
  try {
    await playground.close();
  } finally {
    stopSignals();
  }
  return 0;
}
