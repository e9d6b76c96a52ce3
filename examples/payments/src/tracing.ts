// Tracing as most teams set it up: the stock OpenTelemetry Node SDK and the stock amqplib
// instrumentation, nothing of acktrail's. The SDK reads its settings from the standard
// environment (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME,
// OTEL_BSP_SCHEDULE_DELAY); without an endpoint nothing starts. Imported first by main.ts, before
// amqplib is loaded.
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { NodeSDK } from '@opentelemetry/sdk-node';

function start(): NodeSDK | null {
  const role = process.argv[2];
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT || !role || ['migrate', 'loadgen'].includes(role))
    return null;
  process.env.OTEL_SERVICE_NAME ??= `payments-${role}`;
  // acktrail receives traces; the SDK would also export metrics and logs to the same endpoint.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({ instrumentations: [new AmqplibInstrumentation()] });
  sdk.start();
  return sdk;
}

export const tracing = start();
