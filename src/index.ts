/**
 * taoloop: ReAct agents for TypeScript. This entry is the portable core: no Node built-in in its import
 * graph, so it runs in Node, browsers, Deno, Bun, Cloudflare Workers and edge functions. What needs Node
 * (files, subprocesses, llama.cpp in process, MCP, traces on disk) is in `taoloop/node`, which re-exports
 * all of this too.
 *
 * @example
 * ```ts
 * import { runAgent, calculator, resolveModelSpec } from 'taoloop';
 * const model = await resolveModelSpec('openai-compatible:http://127.0.0.1:8080/v1#qwen2.5');
 * const result = await runAgent({ model, question: 'What is 20 * 12 * 7?', tools: [calculator] });
 * ```
 *
 * @module
 */
export {
  type AgentToolOptions,
  agentTool,
  DEFAULT_AGENT_TOOL_MAX_INPUT_CHARS,
  unionOfEffects,
} from './agent/agent-tool.js';
export {
  markerCompaction,
  SUMMARY_INSTRUCTIONS,
  type SummaryCompactionOptions,
  summaryCompaction,
} from './agent/compaction.js';
export type { AgentMessage, AgentMessagePart } from './agent/conversation.js';
export {
  AgentConfigError,
  BudgetExceededError,
  InvalidToolInputError,
  NoSuchToolError,
} from './agent/errors.js';
export { FINAL_ANSWER_TOOL } from './agent/final-answer.js';
export type {
  OnStepEndFunction,
  PrepareStepFunction,
  PrepareStepOptions,
  PrepareStepResult,
} from './agent/hooks.js';
export { DEFAULT_MAX_STEPS, runAgent, streamAgent } from './agent/loop.js';
export {
  type AnswerCandidate,
  type AnswerCheck,
  DEFAULT_MAX_ANSWER_CORRECTIONS,
  type InferOutput,
  type OutputSchema,
} from './agent/output.js';
export { RunStateError, type RunStateProblem } from './agent/pause-errors.js';
export { resumeAgent, streamResumedAgent } from './agent/resume.js';
export {
  type ConversationStore,
  createMemoryStore,
  createSession,
  type Session,
  type SessionOptions,
} from './agent/session.js';
export type { RepairToolCallFunction, RepairToolCallOptions } from './agent/tool-repair.js';
export type {
  AgentEvent,
  AgentOptions,
  ApprovalDecision,
  ApprovalRequest,
  ApproveFn,
  Journal,
  PauseAnswer,
  PendingApprovalRequest,
  ResumeOptions,
  RunJournalEntry,
  RunResult,
  RunState,
  RunUsage,
  Step,
  StepObservation,
  StopReason,
  ToolCallRepair,
} from './agent/types.js';
export { RUN_STATE_VERSION } from './agent/types.js';
export { fromLanguageModel } from './models/ai-sdk.js';
export { ModelConfigError } from './models/errors.js';
export type { ModelPrice, PriceTable } from './models/pricing.js';
export {
  defaultModelSpec,
  describeModelSetup,
  type ModelSpec,
  parseModelSpec,
  type ResolveModelOptions,
  resolveModelSpec,
} from './models/spec.js';
export type {
  FinishReason,
  Model,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelRetry,
  ModelStreamPart,
  ModelUsage,
} from './models/types.js';
export { type ExampleStep, type FewShotExample, parseExamples, renderExamples } from './react/examples.js';
export {
  ENGLISH_LABELS,
  FRENCH_LABELS,
  INDONESIAN_LABELS,
  LABEL_SETS,
  type LabelLanguage,
  type LabelSet,
  mergeLabels,
  PORTUGUESE_LABELS,
} from './react/labels.js';
export { formatObservation } from './react/observation.js';
export { findInventedObservation, type ParseOptions, parseTurn } from './react/parse.js';
export {
  renderMessages,
  renderSystemPrompt,
  type SystemPromptOptions,
  stopSequences,
  type TextMessage,
  type ToolDescription,
} from './react/prompt.js';
export type { ActionTurn, AnswerTurn, FormatProblemKind, NoneTurn, Turn } from './react/turn.js';
export type { TelemetryOptions } from './telemetry/otel.js';
export { calculator, evaluateExpression } from './tools/calculator.js';
export { defineTool, type ToolDefinition } from './tools/define.js';
export {
  createToolRouter,
  type ExecuteOptions,
  type PreparedCall,
  type RefusedCall,
  ToolConfigError,
  type ToolOutcome,
  type ToolRouter,
} from './tools/router.js';
export { DocumentIndex, type SearchHit, type SourceDocument } from './tools/search-index.js';
export {
  createSearchTool,
  type DocumentSearchToolOptions,
  NO_MATCH,
  type SearchDocuments,
  searchTool,
} from './tools/search-tool.js';
export type { Tool, ToolContext, ToolEffects, ToolInputSchema, ToolSnapshot } from './tools/types.js';
export { type WikipediaApiOptions, wikipediaApi } from './tools/wikipedia-api.js';
export type { WikipediaResponseCache } from './tools/wikipedia-http.js';
export { wikipediaPages } from './tools/wikipedia-pages.js';
export {
  createWikipediaTools,
  type WikipediaBackend,
  type WikipediaPage,
} from './tools/wikipedia-tools.js';
export {
  type AgentUIStreamResponseOptions,
  createAgentUIStreamResponse,
  UIMessagesError,
  uiMessagesToAgentMessages,
} from './ui/ui-response.js';
export {
  type TaoloopDataParts,
  type TaoloopStopData,
  type TaoloopUIMessage,
  type TaoloopUIMessageChunk,
  type ToUIMessageStreamOptions,
  toUIMessageStream,
} from './ui/ui-stream.js';
