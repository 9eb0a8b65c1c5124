/**
 * A whole evaluation in its own process, for the kill-and-resume test:
 * `node --import tsx eval-child.ts <results.jsonl> <delayMs>`. Strategies react, cot and cot-sc (n = 3)
 * on the 8 questions of `eval-qa.jsonl`, two at a time, with the oracle model and the local corpus.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../../src/eval/datasets.js';
import type { PromptSet } from '../../../src/eval/prompts.js';
import { runEval } from '../../../src/eval/runner.js';
import { createWikipediaTools, wikipediaCorpus } from '../../../src/tools/wikipedia.js';
import { oracleAnswers, oracleModel } from './oracle-model.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));
const [resultsFile = '', delay = '0'] = process.argv.slice(2);
const datasetFile = fixture('eval-qa.jsonl');
const backend = wikipediaCorpus(fixture('wiki-corpus.jsonl'));
const run = await runEval({
  model: oracleModel(oracleAnswers(datasetFile), Number(delay)),
  dataset: loadDataset(datasetFile),
  strategies: ['react', 'cot', 'cot-sc'],
  prompts: JSON.parse(readFileSync(fixture('eval-prompts.json'), 'utf8')) as PromptSet,
  createTools: () => createWikipediaTools({ backend }),
  resultsFile,
  concurrency: 2,
  samples: 3,
  onProgress: (progress) => {
    if (progress.latest) process.stdout.write(`done ${progress.done}\n`);
  },
});
process.stdout.write(`finished ran=${run.ran} resumed=${run.resumed}\n`);
