/**
 * Exporting spans over OTLP/HTTP with the OpenTelemetry SDK, an optional peer dependency loaded only when
 * {@link otlpTracer} is called.
 *
 * @module
 */
import type { Tracer } from '@opentelemetry/api';
import { importAtRunTime } from '../util/runtime-import.js';

/** The SDK packages {@link otlpTracer} needs, pinned as taoloop is tested with them. */
export const OTLP_PACKAGES =
  '@opentelemetry/sdk-trace-base@2.12.1 @opentelemetry/exporter-trace-otlp-http@0.223.1';

/**
 * A tracer that exports over OTLP/HTTP to any collector (Jaeger, Langfuse, Phoenix, ...). The SDK and
 * exporter load only when this is called. Call `shutdown()` before the process exits to flush.
 *
 * @param url the collector's traces endpoint, e.g. `http://127.0.0.1:4318/v1/traces`.
 * @throws {Error} when the SDK packages are not installed, naming the `npm install` command.
 */
export async function otlpTracer(url: string): Promise<{
  tracer: Tracer;
  /** Exports the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    importAtRunTime<typeof import('@opentelemetry/sdk-trace-base')>('@opentelemetry/sdk-trace-base'),
    importAtRunTime<typeof import('@opentelemetry/exporter-trace-otlp-http')>(
      '@opentelemetry/exporter-trace-otlp-http',
    ),
  ]).catch((error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error(
      `otlpTracer needs the OpenTelemetry SDK, which is not installed: run \`npm install ${OTLP_PACKAGES}\`.`,
    );
  });
  const provider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  return { tracer: provider.getTracer('taoloop'), shutdown: () => provider.shutdown() };
}
