/**
 * `taoloop run`: builds the tools and the model from the options, runs the loop and renders its events.
 *
 * @module
 */
import { streamAgent } from '../agent/loop.js';
import type { RunResult } from '../agent/types.js';
import { ModelConfigError } from '../models/errors.js';
import { defaultModelSpec, describeModelSetup, resolveModelSpec } from '../models/spec.js';
import type { Model } from '../models/types.js';
import { LABEL_SETS } from '../react/labels.js';
import { calculator } from '../tools/calculator.js';
import { createSearchTool } from '../tools/search.js';
import type { Tool } from '../tools/types.js';
import { errorMessage } from '../util/own.js';
import { EXIT, UsageError } from './errors.js';
import type { RunCommandOptions } from './main.js';
import { createRenderer } from './render.js';

/** Built-in tools the CLI can offer, by name. */
const BUILT_IN_TOOLS = ['calculator', 'search'] as const;

/** Runs one question and returns the exit code. */
export async function runCommand(question: string, options: RunCommandOptions): Promise<number> {
  if (!question.trim())
    throw new UsageError('the question is empty. Example: taoloop run "What is 20 * 12 * 7?"');
  const tools = await buildTools(options);
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
      labels,
      streaming: options.stream,
      signal: controller.signal,
    });
    for await (const event of run) {
      render(event);
      if (event.type === 'run-end') result = event.result;
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
  return result?.status === 'answered' ? EXIT.answered : EXIT.noAnswer;
}

async function buildTools(options: RunCommandOptions): Promise<Tool[]> {
  const names = options.tools
    ? options.tools
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : ['calculator', ...(options.docs ? ['search'] : [])];
  const unknown = names.filter((n) => !(BUILT_IN_TOOLS as readonly string[]).includes(n));
  if (unknown.length) {
    throw new UsageError(
      `unknown tool ${unknown.map((n) => `"${n}"`).join(', ')} in --tools. Available: ${BUILT_IN_TOOLS.join(', ')}.`,
    );
  }
  const tools: Tool[] = [];
  for (const name of new Set(names)) {
    if (name === 'calculator') tools.push(calculator);
    if (name === 'search') {
      if (!options.docs) throw new UsageError('the search tool needs a folder of documents: add --docs DIR.');
      try {
        tools.push(await createSearchTool({ docsDir: options.docs }));
      } catch (error) {
        throw new UsageError(errorMessage(error));
      }
    }
  }
  return tools;
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
