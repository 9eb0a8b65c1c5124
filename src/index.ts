/**
 * taoloop: ReAct agents for TypeScript. This entry is what an app uses: run an agent (fresh, streamed,
 * resumed), its options and results, tools, models, the `useChat` route, telemetry. It is the portable
 * core: no Node built-in in its import graph, so it runs in Node, browsers, Deno, Bun, Cloudflare Workers
 * and edge functions. What needs Node (files, subprocesses, llama.cpp in process, MCP, traces on disk) is
 * in `taoloop/node`, which re-exports all of this too; the text protocol's parts (the parser, prompt
 * rendering, labels, the tool router, the search index) are in `taoloop/protocol`.
 *
 * @example
 * ```ts
 * import { runAgent, calculator, resolveModelSpec } from 'taoloop';
 * const model = await resolveModelSpec('openai-compatible:http://127.0.0.1:8080/v1#qwen2.5');
 * const result = await runAgent({ model, question: 'What is 20 * 12 * 7?', tools: [calculator] });
 * ```
 *
 * @module taoloop
 */
export { type AgentToolOptions, agentTool } from './agent/agent-tool.js';
export { markerCompaction, type SummaryCompactionOptions, summaryCompaction } from './agent/compaction.js';
export {
  AgentConfigError,
  BudgetExceededError,
  InvalidToolInputError,
  NoSuchToolError,
  RunStateError,
} from './agent/errors.js';
export type {
  OnStepEndFunction,
  PrepareStepFunction,
  PrepareStepOptions,
  PrepareStepResult,
  RepairToolCallFunction,
  RepairToolCallOptions,
} from './agent/hook-types.js';
export { runAgent, streamAgent } from './agent/loop.js';
export type {
  AgentConfig,
  AgentHooks,
  AgentLimits,
  AgentOptions,
  DurableOptions,
  ModelSettings,
  PromptOptions,
  ResumeOptions,
} from './agent/options.js';
export type { AnswerCheck, OutputSchema } from './agent/output.js';
export { resumeAgent, streamResumedAgent } from './agent/resume.js';
export {
  type ConversationStore,
  createMemoryStore,
  createSession,
  type Session,
  type SessionOptions,
} from './agent/session.js';
export type {
  AgentEvent,
  AgentMessage,
  ApprovalDecision,
  ApprovalRequest,
  ApproveFn,
  PendingApprovalRequest,
  RunObserver,
  RunResult,
  RunState,
  Step,
  StepObservation,
  StopReason,
} from './agent/types.js';
export { fromLanguageModel } from './models/ai-sdk.js';
export { ModelConfigError } from './models/errors.js';
export type { PriceTable } from './models/pricing.js';
export { resolveModelSpec } from './models/spec.js';
export type { Model, ModelRequest, ModelResponse, ModelUsage } from './models/types.js';
export { openTelemetry, type TelemetryOptions } from './telemetry/otel.js';
export { calculator } from './tools/calculator.js';
export { defineTool, type ToolDefinition } from './tools/define.js';
export { ToolConfigError } from './tools/router.js';
export { createSearchTool, searchTool } from './tools/search-tool.js';
export type { Tool, ToolContext, ToolEffects } from './tools/types.js';
export { wikipediaApi } from './tools/wikipedia-api.js';
export { createWikipediaTools } from './tools/wikipedia-tools.js';
export {
  type AgentUIStreamResponseOptions,
  createAgentUIStreamResponse,
  UIMessagesError,
  uiMessagesToAgentMessages,
} from './ui/ui-response.js';
export { type TaoloopUIMessage, toUIMessageStream } from './ui/ui-stream.js';
