/**
 * `taoloop run`: builds the tools and the model from the options, runs the loop and renders its events.
 *
 * @module
 */
import { streamAgent } from '../agent/loop.js';
import { AgentConfigError } from '../agent/request.js';
import type { RunResult } from '../agent/types.js';
import { ModelConfigError } from '../models/errors.js';
import { defaultModelSpec, describeModelSetup, resolveModelSpec } from '../models/spec.js';
import type { Model } from '../models/types.js';
import { LABEL_SETS } from '../react/labels.js';
import { ToolConfigError } from '../tools/router.js';
import { terminalApprover } from './approve.js';
import { EXIT, UsageError } from './errors.js';
import type { RunCommandOptions } from './main.js';
import { createRenderer } from './render.js';
import { buildCliTools } from './tools.js';

/** Runs one question and returns the exit code. */
export async function runCommand(question: string, options: RunCommandOptions): Promise<number> {
  if (!question.trim())
    throw new UsageError('the question is empty. Example: taoloop run "What is 20 * 12 * 7?"');
  const tools = await buildCliTools(options);
  const model = await buildModel(options.model);
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  const labels = LABEL_SETS[options.lang];
  const render = createRenderer({ json: options.json, out: process.stdout, labels });
  let result: RunResult | undefined;
  try {
    const run = streamAgent({
      model,
      question,
      tools,
      maxSteps: options.maxSteps,
      mode: options.mode,
      approve: terminalApprover(),
      allowTools: options.yes ? 'all' : options.allow,
      labels,
      streaming: options.stream,
      signal: controller.signal,
    });
    for await (const event of run) {
      render(event);
      if (event.type === 'run-end') result = event.result;
    }
  } catch (error) {
    if (error instanceof AgentConfigError || error instanceof ToolConfigError)
      throw new UsageError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
  }
  return result?.status === 'answered' ? EXIT.answered : EXIT.noAnswer;
}

async function buildModel(spec: string | undefined): Promise<Model> {
  const chosen = spec ?? defaultModelSpec(process.env);
  if (!chosen) throw new UsageError(`no model is configured.\n${describeModelSetup()}`);
  try {
    return await resolveModelSpec(chosen, process.env);
  } catch (error) {
    if (error instanceof ModelConfigError) throw new UsageError(error.message);
    throw error;
  }
}
