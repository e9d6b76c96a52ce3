// Tracing into memory for the package's tests. Import it first: instrumentation-amqplib patches
// amqplib only when amqplib is loaded after the SDK has started.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTracing } from '../sdk.js';

export const memory = new InMemorySpanExporter();
export const tracing = startTracing({
  serviceName: 'instrument-test',
  endpoint: 'http://127.0.0.1:1',
  spanExporter: memory,
  exportIntervalMs: 50,
  instrumentPgAndHttp: false,
});
