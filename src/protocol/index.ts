/**
 * `taoloop/protocol`: the parts of the ReAct text protocol and of the loop's machinery, for those who build
 * on the protocol rather than run agents with it: the turn parser and the stream cut, prompt rendering and
 * stop sequences, labels in several languages, few-shot examples, observations, the tool router, the
 * search index, the calculator's evaluator, the journal a durable engine records a run's effects through,
 * and the defaults the loop uses. An app that runs agents needs only `taoloop`.
 *
 * @example
 * ```ts
 * import { ENGLISH_LABELS, parseTurn } from 'taoloop/protocol';
 * const turn = parseTurn('Thought: add them\nAction: calculator[2 + 2]', { tools: ['calculator'], labels: ENGLISH_LABELS });
 * // turn: { type: 'action', tool: 'calculator', input: '2 + 2', ... }
 * ```
 *
 * @module taoloop/protocol
 */
export { DEFAULT_AGENT_TOOL_MAX_INPUT_CHARS, unionOfEffects } from '../agent/agent-tool.js';
export { SUMMARY_INSTRUCTIONS } from '../agent/compaction.js';
export type { AgentMessagePart } from '../agent/conversation.js';
export { directEffects, journaledEffects, type RunEffects } from '../agent/effects.js';
export type { RunStateProblem } from '../agent/errors.js';
export { FINAL_ANSWER_TOOL } from '../agent/final-answer.js';
export { approvalId, stepCallId, toolCallId } from '../agent/ids.js';
export { DEFAULT_MAX_STEPS } from '../agent/loop.js';
export { TOP_LEVEL_OPTIONS } from '../agent/options.js';
export { type AnswerCandidate, DEFAULT_MAX_ANSWER_CORRECTIONS, type InferOutput } from '../agent/output.js';
export {
  type Journal,
  type PauseAnswer,
  RUN_STATE_VERSION,
  type RunJournalEntry,
  type RunUsage,
  type ToolCallRepair,
} from '../agent/types.js';
export type { ModelPrice } from '../models/pricing.js';
export {
  defaultModelSpec,
  describeModelSetup,
  type ModelSpec,
  parseModelSpec,
  type ResolveModelOptions,
} from '../models/spec.js';
export type { FinishReason, ModelMessage, ModelRetry, ModelStreamPart } from '../models/types.js';
export { type ExampleStep, type FewShotExample, parseExamples, renderExamples } from '../react/examples.js';
export {
  ENGLISH_LABELS,
  FRENCH_LABELS,
  INDONESIAN_LABELS,
  LABEL_SETS,
  type LabelLanguage,
  type LabelSet,
  mergeLabels,
  PORTUGUESE_LABELS,
} from '../react/labels.js';
export { formatObservation } from '../react/observation.js';
export { findInventedObservation, type ParseOptions, parseTurn } from '../react/parse.js';
export {
  renderMessages,
  renderSystemPrompt,
  type SystemPromptOptions,
  stopSequences,
  type TextMessage,
  type ToolDescription,
} from '../react/prompt.js';
export type { ActionTurn, AnswerTurn, FormatProblemKind, NoneTurn, Turn } from '../react/turn.js';
export { evaluateExpression } from '../tools/calculator.js';
export {
  createToolRouter,
  type ExecuteOptions,
  type PreparedCall,
  type RefusedCall,
  type ToolOutcome,
  type ToolRouter,
} from '../tools/router.js';
export { DocumentIndex, type SearchHit, type SourceDocument } from '../tools/search-index.js';
export { type DocumentSearchToolOptions, NO_MATCH, type SearchDocuments } from '../tools/search-tool.js';
export type { ToolInputSchema, ToolSnapshot } from '../tools/types.js';
export type { WikipediaApiOptions } from '../tools/wikipedia-api.js';
export type { WikipediaResponseCache } from '../tools/wikipedia-http.js';
export { wikipediaPages } from '../tools/wikipedia-pages.js';
export type { WikipediaBackend, WikipediaPage } from '../tools/wikipedia-tools.js';
export type {
  TaoloopDataParts,
  TaoloopStopData,
  TaoloopUIMessageChunk,
  ToUIMessageStreamOptions,
} from '../ui/ui-stream.js';
