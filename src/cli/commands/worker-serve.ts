/**
 * What `taoloop worker --restate` runs: one worker process, or (`--replicas n`) a balancer on `--port` in
 * front of n worker processes (node:cluster) that are restarted when they die.
 *
 * @module
 */
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { AgentWorkflow } from '../../restate/service.js';
import { UsageError } from '../errors.js';
import type { WorkerCommandOptions } from '../options.js';
import { requireRestateSdk } from '../restate-sdk.js';

/** Set in the environment of the worker processes a `--replicas` primary forks. */
const REPLICA_ENV = 'TAOLOOP_WORKER_REPLICA';

/** How long a replica may take to close after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5000;

/** Messages from a replica to its primary. */
type ReplicaMessage = { type: 'ready'; url: string } | { type: 'error'; message: string };

/**
 * Serves until SIGINT or SIGTERM.
 * @throws {UsageError} for a bad model or tool configuration, or when the Restate SDK is not installed
 *   (naming the `npm install` command).
 */
export async function serveWorker(options: WorkerCommandOptions): Promise<void> {
  await requireRestateSdk();
  if (cluster.isWorker && process.env[REPLICA_ENV] === '1') return serveReplica(options);
  if (options.replicas > 1) return servePrimary(options);
  const restate = await import('../../restate/index.js');
  const { agent, modelId } = await buildAgent(options);
  const worker = await restate.startWorker({ port: options.port, host: options.host, services: [agent] });
  say(`serving ${options.name ?? restate.DEFAULT_AGENT_SERVICE_NAME} (${modelId}) at ${worker.url}`);
  await register(options, worker.url);
  await stopSignal();
  await worker.close();
  exitIfStuck();
}

/**
 * After SIGTERM the worker's runs are cancelled (their signal is Restate's attempt signal, which fires
 * when the connection closes) and Restate runs them again elsewhere. Should anything still hold the
 * process (a tool that ignores its signal), it exits anyway after this long.
 */
const EXIT_GRACE_MS = 3000;

function exitIfStuck(): void {
  setTimeout(() => {
    say(`calls still running ${EXIT_GRACE_MS / 1000} s after the stop: exiting anyway`);
    process.exit(process.exitCode ?? 0);
  }, EXIT_GRACE_MS).unref();
}

/**
 * The agent workflow for the CLI's model and tools. The model is shared; the tools are built once at start
 * (so a bad option fails at once) and again for every run, because some keep state (Wikipedia's current
 * page for lookup) that concurrent runs must not share. Requests from
 * `taoloop eval --restate` (with `eval`) get the eval's run instead: the few-shot prompt and labels they
 * carry, and a fresh pair of Wikipedia tools (over `--wiki-corpus`, else the live API) per run.
 */
async function buildAgent(options: WorkerCommandOptions): Promise<{ agent: AgentWorkflow; modelId: string }> {
  const [{ buildCliTools }, { LABEL_SETS }, { agentService }, { evalRunOptions }, wikipedia] =
    await Promise.all([
      import('../tools.js'),
      import('../../react/labels.js'),
      import('../../restate/service.js'),
      import('../../restate/eval.js'),
      import('../../tools/wikipedia.js'),
    ]);
  await buildCliTools(options);
  const model = await buildModel(options.model);
  const labels = LABEL_SETS[options.lang];
  const backend =
    options.wikiCorpus !== undefined
      ? wikipedia.wikipediaCorpus(options.wikiCorpus)
      : wikipedia.wikipediaApi();
  const createTools = () => wikipedia.createWikipediaTools({ backend });
  const modelTimeoutMs = options.modelTimeout;
  const agent = agentService({
    ...(options.name !== undefined && { name: options.name }),
    buildRun: async (request) => {
      // An eval episode keeps a local eval's options (no token cap), with the worker's model timeout.
      const episode = evalRunOptions(request, { model, createTools });
      if (episode) return { ...episode, limits: { ...episode.limits, modelTimeoutMs } };
      return {
        model,
        tools: await buildCliTools(options),
        question: request.question,
        maxSteps: request.maxSteps ?? options.maxSteps,
        modelSettings: { mode: options.mode, maxOutputTokens: options.maxOutputTokens },
        prompt: { labels },
        limits: { allowTools: options.yes ? 'all' : options.allow, modelTimeoutMs },
      };
    },
  });
  return { agent, modelId: model.id };
}

/** The model for a spec, or the default chain (TAOLOOP_MODEL, an API key, Ollama, the embedded model). */
async function buildModel(spec: string | undefined) {
  const [{ buildModel: build }, { CLI_MESSAGES }] = await Promise.all([
    import('../setup.js'),
    import('../i18n.js'),
  ]);
  return build(spec, process.env, CLI_MESSAGES.en);
}

/** A forked replica: a worker on a free local port, announced to the primary. */
async function serveReplica(options: WorkerCommandOptions): Promise<void> {
  const send = (message: ReplicaMessage) => process.send?.(message);
  try {
    const { startWorker } = await import('../../restate/worker.js');
    const { agent } = await buildAgent(options);
    const worker = await startWorker({ port: 0, host: '127.0.0.1', services: [agent] });
    send({ type: 'ready', url: worker.url });
    await Promise.race([stopSignal(), new Promise((resolve) => process.once('disconnect', resolve))]);
    await worker.close();
    // The IPC channel to the primary would keep this process alive.
    if (process.connected) process.disconnect();
    exitIfStuck();
  } catch (error) {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}

/** The primary of `--replicas n`: the balancer, the replicas, and their restarts. */
async function servePrimary(options: WorkerCommandOptions): Promise<void> {
  const { startBalancer } = await import('../../restate/balancer.js');
  const { DEFAULT_AGENT_SERVICE_NAME } = await import('../../restate/service.js');
  const urls = new Map<number, string>();
  let stopping = false;
  let failure: string | undefined;
  let readyCount = 0;
  let onChange = () => {};
  const fork = (): ClusterWorker => {
    const replica = cluster.fork({ [REPLICA_ENV]: '1' });
    replica.on('message', (message: ReplicaMessage) => {
      if (message.type === 'ready') {
        urls.set(replica.id, message.url);
        readyCount++;
        say(`replica ${replica.process.pid} ready at ${message.url}`);
      } else failure = message.message;
      onChange();
    });
    replica.on('exit', () => {
      const wasReady = urls.delete(replica.id);
      // Restart replicas that died after starting; one that fails to start stops the whole worker.
      if (!stopping && wasReady) fork();
      else if (!stopping && failure === undefined) failure = 'a worker process exited before it started';
      onChange();
    });
    return replica;
  };
  for (let i = 0; i < options.replicas; i++) fork();
  await new Promise<void>((resolve) => {
    onChange = () => (failure !== undefined || readyCount >= options.replicas) && resolve();
  });
  const balancer =
    failure === undefined
      ? await startBalancer({ port: options.port, host: options.host, backends: () => [...urls.values()] })
      : undefined;
  if (balancer) {
    const name = options.name ?? DEFAULT_AGENT_SERVICE_NAME;
    say(`serving ${name} with ${options.replicas} worker processes at ${balancer.url}`);
    await register(options, balancer.url);
    await stopSignal();
  }
  stopping = true;
  await Promise.all(
    Object.values(cluster.workers ?? {}).map(
      (replica) =>
        replica &&
        new Promise<void>((resolve) => {
          if (replica.isDead()) return resolve();
          const force = setTimeout(() => replica.process.kill('SIGKILL'), STOP_GRACE_MS);
          replica.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          replica.process.kill('SIGTERM');
        }),
    ),
  );
  await balancer?.close();
  if (failure !== undefined) throw new UsageError(failure);
}

async function register(options: WorkerCommandOptions, url: string): Promise<void> {
  if (options.register) {
    const { registerDeployment } = await import('../../restate/client.js');
    await registerDeployment(options.register, url);
    say(`registered ${url} with ${options.register}`);
  } else {
    say(`register it once: curl http://127.0.0.1:9070/deployments --json '{"uri": "${url}"}'`);
  }
}

function say(line: string): void {
  process.stderr.write(`taoloop worker: ${line}\n`);
}

/** Resolves on the first SIGINT or SIGTERM. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
