// One call sets up @opentelemetry/sdk-node: OTLP/HTTP protobuf export (to the acktrail exporter's
// /v1/traces or any collector), W3C trace context and baggage, the amqplib instrumentation with
// acktrail's hooks, and the http and pg instrumentations. Call it before amqplib, pg or http are
// loaded (first import of the process's entry module).
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { amqplibInstrumentation, type AmqpConventions } from './amqplib.js';
import { EventBaggageSpanProcessor } from './baggage.js';

export interface TracingOptions {
  serviceName: string;
  /** Base URL of the OTLP/HTTP receiver, e.g. http://127.0.0.1:9470; /v1/traces is appended. */
  endpoint: string;
  amqp?: AmqpConventions;
  /** How often buffered spans are exported (ms). */
  exportIntervalMs?: number;
  /** pg and http spans too (they carry the event id from baggage). */
  instrumentPgAndHttp?: boolean;
  /** Another exporter instead of OTLP/HTTP protobuf to `endpoint` (tests, other backends). */
  spanExporter?: SpanExporter;
}

export interface Tracing {
  /** Exports every ended span now. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function startTracing(options: TracingOptions): Tracing {
  const exporter =
    options.spanExporter ??
    new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/$/, '')}/v1/traces` });
  const batch = new BatchSpanProcessor(exporter, {
    scheduledDelayMillis: options.exportIntervalMs ?? 1000,
    maxExportBatchSize: 1024,
    maxQueueSize: 16_384,
  });
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    autoDetectResources: false,
    spanProcessors: [new EventBaggageSpanProcessor(), batch],
    instrumentations: [
      amqplibInstrumentation(options.amqp),
      ...(options.instrumentPgAndHttp === false
        ? []
        : [new HttpInstrumentation(), new PgInstrumentation()]),
    ],
  });
  sdk.start();
  return {
    flush: () => batch.forceFlush(),
    shutdown: () => sdk.shutdown(),
  };
}
