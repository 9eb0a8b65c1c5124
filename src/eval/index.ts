/**
 * The evaluation harness: the ReAct paper's strategies (Standard, CoT, CoT-SC, Act, ReAct and the two
 * hybrids) on HotpotQA, FEVER or any question/answer JSONL, scored as the paper scores them, plus the replay
 * of recorded runs. Front ends: `taoloop eval` (src/cli/commands/eval.ts).
 *
 * Source: Yao et al. 2022, _ReAct_, section 3.
 *
 * @module
 */
export { renderChart } from './chart.js';
export {
  DATA_DIR_ENV,
  type Dataset,
  type DatasetKind,
  EvalConfigError,
  type EvalItem,
  loadDataset,
  resolveDataDir,
} from './datasets.js';
export {
  exactMatch,
  type F1Score,
  FEVER_LABELS,
  type FeverLabel,
  f1Score,
  feverLabel,
  labelAccuracy,
  normalizeAnswer,
} from './metrics.js';
export {
  PAPER_MAX_STEPS,
  paperAction,
  paperSplit,
  type RecordedRun,
  type RecordedTurn,
  readRecordedRuns,
  recordedTurns,
} from './paper-env.js';
export { createProgressBar, formatProgress, type ProgressBar } from './progress.js';
export {
  agentPrompt,
  FEVER_TASK,
  loadPrompts,
  PAPER_PROMPTS,
  type PromptKind,
  type PromptSet,
  zeroShotPrompts,
} from './prompts.js';
export {
  type ChangedRun,
  changedRuns,
  endedDifferently,
  type ReplayedRun,
  type ReplayParser,
  type ReplayReport,
  renderReplayMarkdown,
  replayRecordedRuns,
  type TurnReading,
  turnsReadDifferently,
} from './replay.js';
export { formatTable, renderMarkdown, reportRows, type StrategySummary, summarize } from './report.js';
export { writeReport } from './report-files.js';
export { appendResult, latestResults, readResults, scoreAnswer } from './results.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_EVAL_STEPS,
  type EvalOptions,
  type EvalProgress,
  type EvalRun,
  runEval,
} from './runner.js';
export { DEFAULT_SAMPLES, extractAnswer, majorityVote, SAMPLE_TEMPERATURE } from './single-call.js';
export { promptsNeeded, runStrategy, type StrategyContext } from './strategies.js';
export { allToolsFailed, type ToolHealth, toolHealth, toolWarning } from './tool-health.js';
export {
  type ItemResult,
  parseStrategies,
  resultKey,
  STRATEGIES,
  type StrategyName,
  type StrategyOutcome,
  type Vote,
} from './types.js';
