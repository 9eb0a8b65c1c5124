/**
 * OpenTelemetry spans for agent runs, following the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/): one `invoke_agent` span per run, a `chat` span
 * per model call and an `execute_tool` span per tool call, children of the run.
 *
 * Spans are built from the loop's events, so the loop itself knows nothing about tracing: off by default,
 * no cost when off, and a tracing failure is swallowed, never breaking a run.
 *
 * @module
 */
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { AgentEvent, RunObserver, RunResult } from '../agent/types.js';

type Api = typeof import('@opentelemetry/api');

/**
 * OpenTelemetry for a run: spans go to `tracer` (from your SDK setup, or `otlpTracer` in `taoloop/node`),
 * following the GenAI semantic conventions.
 */
export interface TelemetryOptions {
  tracer: Tracer;
  /** `gen_ai.agent.name`. @default 'taoloop' */
  agentName?: string;
}

/**
 * An observer (`hooks.observers`) that records a run's spans: `invoke_agent` for the run, `chat` for each
 * model call, `execute_tool` for each tool call. `@opentelemetry/api` is loaded on the first event. Give
 * each run its own observer (it keeps the open spans of one run).
 *
 * @example
 * ```ts
 * const tracer = trace.getTracer('my-app');
 * await runAgent({ model, tools, question, hooks: { observers: [openTelemetry({ tracer })] } });
 * ```
 */
export function openTelemetry(options: TelemetryOptions): RunObserver {
  let recorder: SpanRecorder | undefined;
  return {
    async event(event) {
      recorder ??= new SpanRecorder(await import('@opentelemetry/api'), options);
      recorder.safely(event);
    },
    abandon() {
      recorder?.abandon();
    },
  };
}

/** Turns events into spans; keeps the open spans of the current run. */
class SpanRecorder {
  #run: { span: Span; context: Context } | undefined;
  readonly #model = new Map<number, Span>();
  readonly #tool = new Map<number, Span>();
  #modelId = '';

  constructor(
    readonly api: Api,
    readonly options: TelemetryOptions,
  ) {}

  /** Records one event; any error from the tracer is dropped (tracing must never break a run). */
  safely(event: AgentEvent): void {
    try {
      this.record(event);
    } catch {
      // Deliberately ignored: see the module comment.
    }
  }

  record(event: AgentEvent): void {
    const { tracer } = this.options;
    switch (event.type) {
      case 'run-start': {
        this.#modelId = event.modelId;
        const agent = this.options.agentName ?? 'taoloop';
        const span = tracer.startSpan(`invoke_agent ${agent}`, {
          kind: this.api.SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': agent,
            'gen_ai.request.model': modelName(event.modelId),
            'gen_ai.provider.name': providerName(event.modelId),
          },
        });
        this.#run = { span, context: this.api.trace.setSpan(this.api.context.active(), span) };
        break;
      }
      case 'model-start':
        this.#model.set(
          event.step,
          tracer.startSpan(
            `chat ${modelName(this.#modelId)}`,
            {
              kind: this.api.SpanKind.CLIENT,
              attributes: {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': modelName(this.#modelId),
                'gen_ai.provider.name': providerName(this.#modelId),
                'taoloop.step': event.step,
              },
            },
            this.#run?.context,
          ),
        );
        break;
      case 'model-end': {
        const span = this.#model.get(event.step);
        span?.setAttributes({
          'gen_ai.response.finish_reasons': [event.finishReason],
          ...(event.usage.inputTokens !== undefined && {
            'gen_ai.usage.input_tokens': event.usage.inputTokens,
          }),
          ...(event.usage.outputTokens !== undefined && {
            'gen_ai.usage.output_tokens': event.usage.outputTokens,
          }),
          'taoloop.turn.type': event.turn.type,
        });
        span?.end();
        this.#model.delete(event.step);
        break;
      }
      case 'tool-start':
        this.#tool.set(
          event.step,
          tracer.startSpan(
            `execute_tool ${event.tool}`,
            {
              kind: this.api.SpanKind.INTERNAL,
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': event.tool,
                'gen_ai.tool.type': 'function',
                'taoloop.step': event.step,
              },
            },
            this.#run?.context,
          ),
        );
        break;
      case 'tool-end': {
        const span = this.#tool.get(event.step);
        if (!event.ok)
          span?.setStatus({ code: this.api.SpanStatusCode.ERROR, message: event.observation.slice(0, 200) });
        span?.end();
        this.#tool.delete(event.step);
        break;
      }
      case 'run-end':
        this.endRun(event.result);
        break;
      case 'model-delta':
      case 'reasoning-delta':
      case 'model-fallback':
      case 'model-retry':
      case 'hook-model-end':
      case 'agent-event':
      case 'hook-error':
      case 'invented-observation':
      case 'approval-start':
      case 'approval-end':
      case 'step-end':
      case 'run-pause':
        break;
      default:
        event satisfies never;
    }
  }

  /** Ends every open span, marked as an error: the run stopped without a `run-end` event. */
  abandon(): void {
    try {
      const open = [...this.#model.values(), ...this.#tool.values()];
      const run = this.#run?.span;
      if (run) open.push(run);
      for (const span of open) {
        span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: 'the run stopped before its end' });
        span.end();
      }
      this.#model.clear();
      this.#tool.clear();
      this.#run = undefined;
    } catch {
      // Tracing must never break a run.
    }
  }

  endRun(result: RunResult): void {
    for (const span of [...this.#model.values(), ...this.#tool.values()]) span.end();
    const span = this.#run?.span;
    span?.setAttributes({
      'taoloop.status': result.status,
      'taoloop.steps': result.steps.length,
      ...(result.usage.inputTokens !== undefined && {
        'gen_ai.usage.input_tokens': result.usage.inputTokens,
      }),
      ...(result.usage.outputTokens !== undefined && {
        'gen_ai.usage.output_tokens': result.usage.outputTokens,
      }),
      ...(result.costUsd !== undefined && { 'taoloop.cost_usd': result.costUsd }),
    });
    if (result.status === 'error')
      span?.setStatus({ code: this.api.SpanStatusCode.ERROR, message: result.error ?? 'error' });
    span?.end();
    this.#model.clear();
    this.#tool.clear();
    this.#run = undefined;
  }
}

/** `openai` from `openai:gpt-4o-mini`. */
function providerName(modelId: string): string {
  return modelId.split(':')[0] ?? modelId;
}

/** `gpt-4o-mini` from `openai:gpt-4o-mini`, `my-model` from `openai-compatible:http://x/v1#my-model`. */
function modelName(modelId: string): string {
  const hash = modelId.lastIndexOf('#');
  if (hash >= 0) return modelId.slice(hash + 1);
  const colon = modelId.indexOf(':');
  return colon >= 0 ? modelId.slice(colon + 1) : modelId;
}
