// One side of bench/instrument.ts, in its own process: publish-with-confirm then consume-with-ack
// of N messages, bare amqplib, with the stock amqplib instrumentation alone, or with
// @acktrail/instrument (spans exported over OTLP to the URL given, or dropped: unexported;
// `sampled`: the same under OTEL_TRACES_SAMPLER=parentbased_traceidratio 0.25, where the recording
// sampler keeps the journey spans of the traces the sampler drops). `window` is how many publishes wait for their confirms together (1: each publish
// waits for its confirm) and the consumer's prefetch. Prints {"publish": msgs/s, "consume":
// msgs/s} on stdout.
import { randomUUID } from 'node:crypto';

const [mode, amqpUrl, countText, otlpUrl, windowText] = process.argv.slice(2);
const count = Number(countText);
const WINDOW = Number(windowText);
async function stockTracing() {
  // The stock amqplib instrumentation alone, under the same SDK setup and export as acktrail's
  // (and as a stock NodeSDK's defaults: W3C trace context and baggage propagated).
  const { trace, context, propagation } = await import('@opentelemetry/api');
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    await import('@opentelemetry/core');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
  const { AmqplibInstrumentation } = await import('@opentelemetry/instrumentation-amqplib');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  const { BatchSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
  const provider = new TracerProvider({
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${otlpUrl!}/v1/traces` }),
        scheduledDelayMillis: 1000,
        maxExportBatchSize: 1024,
        maxQueueSize: 16_384,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({ instrumentations: [new AmqplibInstrumentation()] });
  return { shutdown: () => provider.shutdown() };
}

/** A span exporter that drops everything: what tracing costs before any export. */
const dropping = {
  export: (_spans: unknown[], done: (result: { code: number }) => void) => {
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};

const tracing =
  mode === 'instrumented' || mode === 'unexported' || mode === 'sampled'
    ? (await import('../instrument/src/index.js')).startTracing({
        serviceName: 'bench',
        endpoint: otlpUrl!,
        instrumentPgAndHttp: false,
        ...(mode === 'unexported' ? { spanExporter: dropping } : {}),
      })
    : mode === 'stock'
      ? await stockTracing()
      : null;
// Loaded after the SDK started, as a pipeline's entry module does.
const { default: amqp } = await import('amqplib');

const conn = await amqp.connect(amqpUrl!);
const ch = await conn.createConfirmChannel();
const { queue } = await ch.assertQueue('', { exclusive: true });
const body = Buffer.from(JSON.stringify({ event_id: randomUUID(), order_id: 1 }));

let t = performance.now();
for (let sent = 0; sent < count; sent += WINDOW) {
  await Promise.all(
    Array.from(
      { length: Math.min(WINDOW, count - sent) },
      () =>
        new Promise<void>((resolve, reject) => {
          ch.publish(
            '',
            queue,
            body,
            {
              persistent: true,
              messageId: randomUUID(),
              headers: { 'x-acktrail-aggregate-type': 'order', 'x-acktrail-aggregate-id': '1' },
            },
            (err: unknown) => {
              if (err) reject(new Error('nacked'));
              else resolve();
            },
          );
        }),
    ),
  );
}
const publish = count / ((performance.now() - t) / 1000);

const consumer = await conn.createChannel();
await consumer.prefetch(WINDOW);
t = performance.now();
await new Promise<void>((resolve) => {
  let acked = 0;
  void consumer.consume(queue, (msg) => {
    if (!msg) return;
    consumer.ack(msg);
    if (++acked === count) resolve();
  });
});
const consume = count / ((performance.now() - t) / 1000);
await conn.close();
await tracing?.shutdown();
console.log(JSON.stringify({ publish, consume }));
