// One call sets up tracing for a Node service on RabbitMQ: the amqplib instrumentation with
// acktrail's hooks, and the http and pg instrumentations with the event id from baggage. Call it
// before amqplib, pg or http are loaded (first import of the process's entry module).
//
// Without an SDK in the process it starts one of its own, from @opentelemetry/sdk-trace alone
// (no sdk-node, so none of the metrics, logs, gRPC or Zipkin exporters that sdk-node pulls in):
// OTLP/HTTP protobuf export, W3C trace context and baggage, the standard OTEL_* variables
// (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, OTEL_LOG_LEVEL, ...).
// Its sampler is OTEL_TRACES_SAMPLER's (sampling.ts), for every span but the journey's: those are
// recorded and sent to acktrail whatever the sampler decides (journeySampler, JourneySpanProcessor).
// When the app already registered a tracer provider (its own NodeSDK, say), acktrail starts
// none: its instrumentations go to that provider, whose sampler, processors and exporters are the
// app's and fixed when it was built. For journeys independent of that sampler the app builds its
// SDK with withJourneys(config) (journeys.ts); startTracing warns once where it did not.
import {
  context,
  diag,
  DiagConsoleLogger,
  propagation,
  trace,
  type TracerProvider as ApiTracerProvider,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  diagLogLevelFromString,
  getStringFromEnv,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import { TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { amqplibInstrumentation, type AmqpConventions } from './amqplib.js';
import { EventBaggageSpanProcessor, eventIdFromBaggage } from './baggage.js';
import {
  JourneySpanProcessor,
  acktrailExporter,
  journeysConfigured,
  journeySampler,
  samplerFromEnv,
} from './sampling.js';

export interface TracingOptions {
  /** service.name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES sets one. */
  serviceName?: string;
  /**
   * Base URL of the OTLP/HTTP receiver, e.g. http://127.0.0.1:9470; /v1/traces is appended.
   * Without it the exporter reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or _ENDPOINT.
   */
  endpoint?: string;
  amqp?: AmqpConventions;
  /** How often buffered spans are exported (ms). */
  exportIntervalMs?: number;
  /** pg and http spans too (they carry the event id from baggage). */
  instrumentPgAndHttp?: boolean;
  /** Another exporter instead of OTLP/HTTP protobuf (tests, other backends). */
  spanExporter?: SpanExporter;
}

export interface Tracing {
  /** Whether acktrail started the SDK (false: the app's own provider records the spans). */
  ownSdk: boolean;
  /** Exports every ended span now. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * acktrail's instrumentations for an SDK the app builds: amqplib with its hooks, and http and pg
 * whose spans take the event id from baggage by their own hooks (EventBaggageSpanProcessor does
 * the same for every span, where the app adds it).
 */
export function instrumentations(
  options: Pick<TracingOptions, 'amqp' | 'instrumentPgAndHttp'> = {},
): Instrumentation[] {
  return build(options, true);
}

function build(
  options: Pick<TracingOptions, 'amqp' | 'instrumentPgAndHttp'>,
  tagFromBaggage: boolean,
): Instrumentation[] {
  const amqp = amqplibInstrumentation(options.amqp);
  if (options.instrumentPgAndHttp === false) return [amqp];
  if (!tagFromBaggage) return [amqp, new HttpInstrumentation(), new PgInstrumentation()];
  return [
    amqp,
    new HttpInstrumentation({
      // An incoming request's baggage is in its headers; an outgoing one's is active.
      startIncomingSpanHook: (req) =>
        eventIdFromBaggage(propagation.extract(context.active(), req.headers)),
      startOutgoingSpanHook: () => eventIdFromBaggage(),
    }),
    new PgInstrumentation({
      requestHook: (span) => span.setAttributes(eventIdFromBaggage()),
    }),
  ];
}

/** The context manager and propagators acktrail needs, where the app set none of its own. */
function registerContext(): void {
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager)) manager.enable();
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
}

/** acktrail's instrumentations on the provider the app registered itself. */
function joinExisting(options: TracingOptions): Tracing {
  const existing = trace.getTracerProvider() as ApiTracerProvider & {
    getDelegate?: () => { forceFlush?: () => Promise<void> };
  };
  registerContext();
  if (!journeysConfigured())
    process.emitWarning(
      "acktrail's instrumentations joined the app's tracer provider: messages whose traces its " +
        'sampler drops have no journey. Build the SDK with withJourneys(config) from ' +
        '@acktrail/instrument (docs/adopting.md, "Sampling").',
      { code: 'ACKTRAIL_SAMPLED_JOURNEYS' },
    );
  // The app's provider may lack acktrail's baggage processor: the hooks tag http and pg spans.
  const disable = registerInstrumentations({ instrumentations: build(options, true) });
  return {
    ownSdk: false,
    flush: () => existing.getDelegate?.().forceFlush?.() ?? Promise.resolve(),
    shutdown: () => {
      disable();
      return Promise.resolve();
    },
  };
}

export function startTracing(options: TracingOptions = {}): Tracing {
  // OTEL_LOG_LEVEL as sdk-node reads it: the SDK's own warnings (a refused or timed-out export,
  // spans dropped) on the console, where they are otherwise silent.
  const logLevel = getStringFromEnv('OTEL_LOG_LEVEL');
  if (logLevel)
    diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(logLevel) });
  const exporter = options.spanExporter ?? acktrailExporter(options.endpoint);
  // Every journey span to acktrail, sampled or not; the app's sampler decides the rest.
  const journeys = new JourneySpanProcessor({
    exporter,
    sampled: true,
    scheduledDelayMillis: options.exportIntervalMs ?? 1000,
  });
  const fallback = resourceFromAttributes(
    options.serviceName ? { 'service.name': options.serviceName } : {},
  );
  const provider = new TracerProvider({
    // The environment's attributes win over the fallback name given in code.
    resource: defaultResource()
      .merge(fallback)
      .merge(
        detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }),
      ),
    sampler: journeySampler(
      samplerFromEnv((message) => {
        diag.warn(message);
      }),
    ),
    // Every span started in an event's baggage carries its id, the app's own spans too.
    spanProcessors: [new EventBaggageSpanProcessor(), journeys],
  });
  // Registration fails when the app registered a provider first: acktrail then joins that one.
  if (!trace.setGlobalTracerProvider(provider)) {
    void provider.shutdown();
    return joinExisting(options);
  }
  registerContext();
  const disable = registerInstrumentations({
    tracerProvider: provider,
    // EventBaggageSpanProcessor tags every span of this provider: no hooks needed.
    instrumentations: build(options, false),
  });
  return {
    ownSdk: true,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      disable();
      await provider.shutdown();
    },
  };
}
