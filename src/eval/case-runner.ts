/**
 * A team's own cases against a live agent, k tries each, on the one trial engine ({@link runTrials}):
 * concurrent, resumable from stored tries, stopped by a signal or by model errors in a row. Each try is
 * scored ({@link scoreCase}) and kept as a {@link CaseTrial}; `summarizeTrials` turns them into pass^k,
 * cost per task and latency.
 *
 * Portable: where tries are stored and traces are written is the caller's (`taoloop test` keeps them in files).
 *
 * @module
 */
import { messageText } from '../agent/conversation.js';
import { streamAgent } from '../agent/loop.js';
import type { AgentConfig, AgentInput } from '../agent/options.js';
import type { AgentEvent, RunResult } from '../agent/types.js';
import { fingerprint } from '../util/fingerprint.js';
import { errorMessage } from '../util/own.js';
import type { AgentCase, CaseRunFacts, CaseScorer, CaseTrial } from './cases.js';
import { scoreCase } from './cases.js';
import { runTrials, type TrialStore } from './engine.js';

/** One configuration the cases run against: a label for reports, and the agent (model included). */
export interface CaseConfig {
  /** Names this configuration in results and reports, e.g. the model id. Unique within a run. */
  label: string;
  agent: AgentConfig;
}

/** Where one try's events go (a trace file, say); `file` is recorded on the try. */
export interface TrialTrace {
  file: string;
  /** Records one event of the try's run, in order. */
  write(event: AgentEvent): void;
  /** Called instead of a last event when the run threw. */
  writeError?(message: string): void;
}

/** Options for {@link runCases}. */
export interface RunCasesOptions {
  cases: readonly AgentCase[];
  /** One or two (or more) configurations; every case runs `repeats` times against each. */
  configs: readonly CaseConfig[];
  /** Tries per case and configuration (k). A whole number ≥ 1. */
  repeats: number;
  /** Scorer functions that cases name in `expect.scorer`. @default none */
  scorers?: Readonly<Record<string, CaseScorer>>;
  /** Where tries are kept; stored tries are not run again (those that ended `error` are). @default in memory */
  store?: TrialStore<CaseTrial>;
  /** Tries run at the same time. @default 4 */
  concurrency?: number;
  /** Stops the run: tries in flight are dropped, finished ones stay stored. */
  signal?: AbortSignal;
  /** Where a try's events go; `question` is the case's (its last user message for `messages`). @default nowhere */
  trace?: (trial: {
    config: string;
    caseId: string;
    trial: number;
    question: string;
  }) => TrialTrace | undefined;
  /** Called after each try is stored. */
  onResult?: (trial: CaseTrial) => void;
  /** Tries in a row that end with a model error (`error`) before the run stops. @default 10 */
  maxConsecutiveErrors?: number;
}

/** What {@link runCases} did. */
export interface CasesRun {
  /** Every try with a result, resumed ones included, by configuration then case then try. */
  trials: CaseTrial[];
  /** Tries read back from the store. */
  resumed: number;
  /** Tries run now. */
  ran: number;
  interrupted: boolean;
  stoppedBy?: string;
}

/**
 * The key a try is stored under: its configuration, case and number, and the fingerprint of what it ran
 * (so a stored try of another prompt, tool list, model or case text is run again, not reused).
 */
export function trialKey(trial: Pick<CaseTrial, 'config' | 'caseId' | 'trial' | 'fingerprint'>): string {
  return `${trial.config}\u0000${trial.caseId}\u0000${trial.trial}\u0000${trial.fingerprint ?? ''}`;
}

/**
 * What a configuration sends before any question: its system prompt and tools, read from the run's first
 * event by a run whose model is never called (nothing runs), with the model id and step limit.
 */
export async function configRequest(agent: AgentConfig): Promise<{ systemPrompt: string; tools: string[] }> {
  const probe = streamAgent({
    ...agent,
    question: '?',
    model: { id: agent.model.id, generate: () => Promise.reject(new Error('probe')) },
  } as Parameters<typeof streamAgent>[0]);
  try {
    const first = await probe.next();
    if (!first.done && first.value.type === 'run-start') {
      return { systemPrompt: first.value.systemPrompt, tools: first.value.tools };
    }
    throw new Error(first.done ? (first.value.error ?? 'the run did not start') : 'the run did not start');
  } finally {
    await probe.return(undefined as never);
  }
}

/**
 * Checks every case against the configurations before anything runs: each `expect.scorer` must be among
 * `scorers`, and each tool in `toolsCalled` / `toolsNotCalled` must be a tool of every configuration (a typo
 * would make the check always fail, or always pass).
 *
 * @throws {RangeError} naming the case, the name and what exists.
 */
export function checkCases(
  cases: readonly AgentCase[],
  tools: ReadonlyMap<string, readonly string[]>,
  scorers: Readonly<Record<string, CaseScorer>>,
): void {
  for (const testCase of cases) {
    const { scorer, toolsCalled = [], toolsNotCalled = [] } = testCase.expect;
    if (scorer !== undefined && !Object.hasOwn(scorers, scorer)) {
      const known = Object.keys(scorers);
      throw new RangeError(
        `case "${testCase.id}" names the scorer "${scorer}", but ${known.length === 0 ? 'no scorers were given' : `the scorers are ${known.join(', ')}`} (taoloop test: export \`scorers\` from your --agent module).`,
      );
    }
    for (const [label, names] of tools) {
      const unknown = [...toolsCalled, ...toolsNotCalled].filter((name) => !names.includes(name));
      if (unknown.length > 0) {
        throw new RangeError(
          `case "${testCase.id}" expects calls of ${unknown.map((n) => `"${n}"`).join(', ')}, which ${unknown.length === 1 ? 'is not a tool' : 'are not tools'} of ${label} (its tools: ${names.join(', ') || 'none'}).`,
        );
      }
    }
  }
}

/**
 * Runs every case `repeats` times against each configuration and scores each try.
 *
 * @throws {RangeError} for `repeats` that is not a whole number ≥ 1, two configurations with one label, a
 *   case naming a scorer that was not given or a tool a configuration does not have; an `AgentConfigError`
 *   for a configuration a run refuses. All before any model is called.
 */
export async function runCases(options: RunCasesOptions): Promise<CasesRun> {
  const { repeats } = options;
  if (!Number.isSafeInteger(repeats) || repeats < 1) {
    throw new RangeError(`repeats must be a whole number ≥ 1, not ${String(repeats)}.`);
  }
  const labels = options.configs.map((c) => c.label);
  const twice = labels.find((label, i) => labels.indexOf(label) !== i);
  if (twice !== undefined)
    throw new RangeError(`two configurations are labelled "${twice}"; give each its own.`);
  const requests = new Map<string, { systemPrompt: string; tools: string[] }>();
  for (const config of options.configs) requests.set(config.label, await configRequest(config.agent));
  checkCases(
    options.cases,
    new Map([...requests].map(([label, request]) => [label, request.tools])),
    options.scorers ?? {},
  );
  const fingerprints = new Map<string, string>();
  for (const config of options.configs) {
    const request = requests.get(config.label);
    const configPrint = fingerprint(
      JSON.stringify([
        config.agent.model.id,
        config.agent.maxSteps ?? null,
        request?.systemPrompt,
        request?.tools,
      ]),
    );
    for (const testCase of options.cases) {
      fingerprints.set(
        `${config.label}\u0000${testCase.id}`,
        `${configPrint}.${fingerprint(JSON.stringify(testCase))}`,
      );
    }
  }
  const stored: CaseTrial[] = [];
  const store = options.store ?? { results: stored, append: (t: CaseTrial) => stored.push(t) };
  const expectsError = new Set(options.cases.filter((c) => c.expect.status === 'error').map((c) => c.id));
  const trials = options.configs.flatMap((config) =>
    options.cases.flatMap((testCase) =>
      Array.from({ length: repeats }, (_, trial) => {
        const print = fingerprints.get(`${config.label}\u0000${testCase.id}`) ?? '';
        return {
          key: trialKey({ config: config.label, caseId: testCase.id, trial, fingerprint: print }),
          input: { config, testCase, trial, print },
        };
      }),
    ),
  );
  const run = await runTrials({
    trials,
    keyOf: trialKey,
    store,
    failed: (t) => t.status === 'error' && !expectsError.has(t.caseId),
    failure: (t) => t.error,
    run: ({ config, testCase, trial, print }, { signal }) =>
      runTry(options, config, testCase, trial, print, signal),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.signal !== undefined && { signal: options.signal }),
    ...(options.maxConsecutiveErrors !== undefined && {
      maxConsecutiveFailures: options.maxConsecutiveErrors,
    }),
    ...(options.onResult !== undefined && { onResult: options.onResult }),
  });
  return {
    trials: run.results,
    resumed: run.resumed.length,
    ran: run.ran,
    interrupted: run.interrupted,
    ...(run.stoppedBy !== undefined && { stoppedBy: run.stoppedBy }),
  };
}

/** One try: the run, its trace, its score; `undefined` when the signal stopped it. */
async function runTry(
  options: RunCasesOptions,
  config: CaseConfig,
  testCase: AgentCase,
  trial: number,
  print: string,
  signal: AbortSignal,
): Promise<CaseTrial | undefined> {
  const question = testCase.question ?? lastUserText(testCase);
  const trace = options.trace?.({ config: config.label, caseId: testCase.id, trial, question });
  const input: AgentInput =
    testCase.messages !== undefined ? { messages: testCase.messages } : { question: testCase.question ?? '' };
  const started = Date.now();
  let result: RunResult | undefined;
  let thrown: string | undefined;
  try {
    const stream = streamAgent({ ...config.agent, ...input, signal } as Parameters<typeof streamAgent>[0]);
    for (let next = await stream.next(); ; next = await stream.next()) {
      if (next.done) {
        result = next.value;
        break;
      }
      trace?.write(next.value);
    }
  } catch (error) {
    thrown = errorMessage(error);
    trace?.writeError?.(thrown);
  }
  if (signal.aborted) return undefined;
  const error = result?.error ?? thrown;
  const facts: CaseRunFacts = {
    status: result?.status ?? 'error',
    answer: result?.answer ?? null,
    ...(result?.output !== undefined && { output: result.output }),
    toolCalls: (result?.steps ?? []).flatMap((s) => [
      ...(s.turn.type === 'action' ? [s.turn.tool] : []),
      ...(s.otherCalls ?? []).map((c) => c.tool),
    ]),
    steps: result?.steps.length ?? 0,
    ...(result?.costUsd !== undefined && { costUsd: result.costUsd }),
    ...(error !== undefined && { error }),
  };
  const score = await scoreCase(testCase, facts, options.scorers);
  return {
    caseId: testCase.id,
    trial,
    config: config.label,
    fingerprint: print,
    modelId: config.agent.model.id,
    status: facts.status,
    answer: facts.answer,
    ...(facts.output !== undefined && { output: facts.output }),
    passed: score.passed,
    checks: score.checks,
    steps: facts.steps,
    toolCalls: facts.toolCalls,
    usage: result?.usage ?? {},
    ...(result?.costUsd !== undefined && { costUsd: result.costUsd }),
    durationMs: result?.durationMs ?? Date.now() - started,
    ...(error !== undefined && { error }),
    ...(trace && { trace: trace.file }),
  };
}

/** The text of a case's last user message. */
function lastUserText(testCase: AgentCase): string {
  const last = [...(testCase.messages ?? [])].reverse().find((m) => m.role === 'user');
  return last === undefined ? '' : messageText(last);
}
