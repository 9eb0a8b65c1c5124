/**
 * `taoloop/testing`: tests for agents, and test doubles for code that uses taoloop.
 *
 * - **Recorded runs as regression tests**: {@link checkTrace} replays a trace's model turns against today's
 *   tools, prompt and parser and reports what diverged; {@link checkTraceFile} does it for a file (and with
 *   `update`, accepts today's behaviour into it); {@link formatTraceCheck} writes the diff for a test failure.
 * - **Your own cases, k tries each**: {@link parseCases} reads a cases file, {@link runCases} runs them
 *   against one or more configurations, {@link summarizeTrials} gives pass^k, cost per task and latency,
 *   {@link compareConfigs} compares two configurations with a paired bootstrap; reports as Markdown, JSON,
 *   SVG and JUnit XML.
 * - **Doubles**: {@link scriptedModel}, a model that returns scripted turns.
 *
 * Portable, but for the file functions (`checkTraceFile`, `findTraceFiles`), which load `node:fs` when
 * called and so need Node, Deno or Bun.
 *
 * @example
 * ```ts
 * import { checkTraceFile, formatTraceCheck } from 'taoloop/testing';
 * test('the refund run still replays', async () => {
 *   const check = await checkTraceFile('test/traces/refund.jsonl', { tools, instructions });
 *   assert.ok(check.passed, formatTraceCheck(check, check.file));
 * });
 * ```
 *
 * @module taoloop/testing
 */
export { casesJson, renderCasesMarkdown, renderCasesSvg, renderJUnitXml } from '../eval/case-report.js';
export {
  type CaseConfig,
  type CasesRun,
  type RunCasesOptions,
  runCases,
  type TrialTrace,
} from '../eval/case-runner.js';
export {
  type AgentCase,
  type CaseCheck,
  type CaseExpectations,
  CaseFormatError,
  type CaseRunFacts,
  type CaseScorer,
  type CaseTrial,
  parseCases,
  scoreCase,
} from '../eval/cases.js';
export type { TrialStore } from '../eval/engine.js';
export {
  type CaseSummary,
  type CasesSummary,
  type ConfigComparison,
  compareConfigs,
  passHatK,
  summarizeTrials,
} from '../eval/pass-k.js';
export {
  checkTrace,
  formatTraceCheck,
  type TraceCheck,
  type TraceCheckOptions,
  type TraceDifference,
  type TraceDifferenceKind,
  type TraceMasks,
} from '../eval/trace-check.js';
export {
  checkTraceFile,
  findTraceFiles,
  type TraceFileCheck,
  type TraceFileCheckOptions,
} from '../eval/trace-files.js';
export { parseTrace, type Trace } from '../trace/trace-format.js';
export {
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTurn,
  scriptedModel,
} from './scripted-model.js';
