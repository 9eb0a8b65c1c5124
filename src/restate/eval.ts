/**
 * `taoloop eval --restate`: the evaluation harness with its ReAct and Act episodes run as Restate workflow
 * runs, spread over every worker behind the ingress, and collected into the same results file and report
 * as a local eval.
 *
 * Both sides build an episode from the same function (`evalAgentOptions`): the client sends the strategy,
 * the dataset kind and the strategy's few-shot prompt text in the {@link RunRequest} (`eval`), and the
 * worker adds its model and a fresh pair of Wikipedia tools. So the run is the one a local eval would
 * make, with the worker's model and Wikipedia backend (`--model`, `--wiki-corpus` of `taoloop worker`).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { DEFAULT_EVAL_STEPS, type PairRunner } from '../eval/runner.js';
import { errorOutcome, evalAgentOptions, fromRunResult } from '../eval/strategies.js';
import type { StrategyName } from '../eval/types.js';
import type { Model } from '../models/types.js';
import type { Tool } from '../tools/types.js';
import { type IngressOptions, submitRun } from './client.js';
import type { DurableRunOptions, EvalEpisode, RunRequest } from './service.js';

/** The strategies `taoloop eval --restate` runs on the workers: the ones that run the agent loop. */
export const RESTATE_EVAL_STRATEGIES: readonly StrategyName[] = ['react', 'act'];

/**
 * The worker side: the agent options of an eval request (one with `eval`), or `undefined` for any other
 * request. `createTools` must give a fresh pair of Wikipedia tools per call (they keep the current page).
 *
 * @example
 * ```ts
 * const backend = wikipediaCorpus('pages.jsonl');
 * agentService({
 *   buildRun: async (request) =>
 *     evalRunOptions(request, { model, createTools: () => createWikipediaTools({ backend }) }) ??
 *     { model, tools, question: request.question },
 * });
 * ```
 */
export function evalRunOptions(
  request: RunRequest,
  worker: { model: Model; createTools: () => Tool[] },
): DurableRunOptions | undefined {
  const episode = request.eval;
  if (episode === undefined) return undefined;
  return {
    model: worker.model,
    tools: worker.createTools(),
    ...evalAgentOptions({
      style: episode.strategy,
      kind: episode.kind,
      prompt: episode.prompt,
      question: request.question,
      maxSteps: request.maxSteps ?? DEFAULT_EVAL_STEPS,
    }),
  };
}

/** Options for {@link restateEvalRunner}. */
export interface RestateEvalOptions extends Omit<IngressOptions, 'signal'> {
  /**
   * The results file the eval writes: part of every run ID, so that a rerun of the same eval collects the
   * runs it had started (no episode runs twice) while another results file starts its own.
   */
  resultsFile: string;
}

/**
 * The client side: a `runPair` for `runEval` that runs each ReAct or Act episode as one Restate run and
 * turns its `RunResult` into the outcome a local episode gives. The run ID is derived from the results
 * file, the pair, its try number and the request itself, so a rerun after Ctrl-C collects runs still in
 * flight, a pair that ended with `error` is tried afresh, and a changed prompt or step limit starts new runs.
 * Other strategies give an `error` outcome (the CLI refuses them before starting).
 */
export function restateEvalRunner(ingressUrl: string, options: RestateEvalOptions): PairRunner {
  const file = resolve(options.resultsFile);
  return async (strategy, context) => {
    if (strategy !== 'react' && strategy !== 'act') {
      return errorOutcome(new Error(`${strategy} does not run on Restate; only react and act do.`));
    }
    const prompt = context.prompts[strategy];
    if (prompt === undefined) return errorOutcome(new Error(`No "${strategy}" prompt was loaded.`));
    const episode: EvalEpisode = { strategy, kind: context.kind, prompt };
    const request: RunRequest = {
      question: context.item.question,
      maxSteps: context.maxSteps,
      metadata: { itemId: context.item.id, strategy },
      eval: episode,
    };
    const digest = createHash('sha256')
      .update(JSON.stringify([file, context.attempt, request]))
      .digest('hex')
      .slice(0, 16);
    try {
      const result = await submitRun(ingressUrl, request, {
        ...(options.service !== undefined && { service: options.service }),
        signal: context.signal,
        idempotencyKey: `eval:${strategy}:${context.item.id}:${context.attempt}:${digest}`,
      });
      return { ...fromRunResult(result), modelId: result.modelId };
    } catch (error) {
      if (context.signal.aborted) return { ...errorOutcome(error), status: 'aborted' };
      return errorOutcome(error);
    }
  };
}
