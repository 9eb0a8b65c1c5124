/**
 * `taoloop/restate`: durable agent runs on Restate (https://restate.dev). One workflow invocation per run;
 * every model call, tool call and approval is journaled, so a run survives the death of its worker and an
 * approval can wait for days.
 *
 * @example
 * ```ts
 * import { agentService, startWorker, submitRun } from 'taoloop/restate';
 * const agent = agentService({ buildRun: async ({ question }) => ({ model, tools: [calculator], question }) });
 * await startWorker({ port: 9080, services: [agent] });
 * // register once: curl http://127.0.0.1:9070/deployments --json '{"uri": "http://127.0.0.1:9080"}'
 * const result = await submitRun('http://127.0.0.1:8080', { question: 'What is 6 * 7?' });
 * ```
 *
 * @module taoloop/restate
 */
export { type BalancerOptions, type RestateBalancer, startBalancer } from './balancer.js';
export {
  answerApproval,
  type IngressOptions,
  pendingApproval,
  RestateClientError,
  type RunItem,
  type RunOnRestateOptions,
  registerDeployment,
  runOnRestate,
  runResult,
  type SubmitOptions,
  startDurableRun,
  submitRun,
} from './client.js';
export {
  evalRunOptions,
  RESTATE_EVAL_STRATEGIES,
  type RestateEvalOptions,
  restateEvalRunner,
} from './eval.js';
export {
  type AgentServiceOptions,
  type AgentWorkflow,
  type ApprovalAnswer,
  agentService,
  approvalPromiseName,
  DEFAULT_AGENT_SERVICE_NAME,
  type DurableRunOptions,
  type EvalEpisode,
  type PendingApproval,
  parseApprovalAnswer,
  parseRunRequest,
  type RunRequest,
  restateJournal,
} from './service.js';
export { type RestateDefinition, type RestateWorker, startWorker, type WorkerOptions } from './worker.js';
