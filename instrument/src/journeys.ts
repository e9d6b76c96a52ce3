// The one line an app with its own SDK adds for journeys independent of its trace sampler:
//
//   const sdk = new NodeSDK(withJourneys({ serviceName: 'orders', instrumentations: [...] }));
//
// The configuration comes back with the app's sampler wrapped (journeySampler: a journey span the
// sampler drops is recorded all the same), acktrail's processor beside the app's (it exports those
// spans to acktrail alone) and acktrail's instrumentations added. The app's trace backend still
// receives exactly its sample. Any SDK configuration of this shape works (NodeSDK's, or a
// TracerProvider's sampler and spanProcessors).
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  BatchSpanProcessor,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { getStringFromEnv } from '@opentelemetry/core';
import { diag } from '@opentelemetry/api';
import {
  JourneySpanProcessor,
  acktrailExporter,
  journeySampler,
  markJourneysConfigured,
  samplerFromEnv,
} from './sampling.js';
import { instrumentations, type TracingOptions } from './sdk.js';

/** The parts of an SDK configuration (NodeSDKConfiguration's names) that withJourneys reads. */
export interface SdkConfiguration {
  sampler?: Sampler;
  spanProcessors?: SpanProcessor[];
  traceExporter?: SpanExporter;
  instrumentations?: (Instrumentation | Instrumentation[])[];
}

export interface JourneyOptions extends Pick<TracingOptions, 'amqp' | 'instrumentPgAndHttp'> {
  /**
   * acktrail's receiver, e.g. http://acktrail:9470 (/v1/traces is appended). Without it, the
   * OTLP endpoint of the environment (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or _ENDPOINT).
   */
  endpoint?: string;
  /** Headers for acktrail's receiver (its ingest token); else OTEL_EXPORTER_OTLP_*HEADERS. */
  headers?: Record<string, string>;
  /** Sampled spans to acktrail too: for an app whose own exporters do not reach acktrail. */
  sampled?: boolean;
  /** acktrail's instrumentations are added unless false (the app lists them itself). */
  addInstrumentations?: boolean;
  /** Another exporter to acktrail instead of OTLP/HTTP protobuf (tests). */
  spanExporter?: SpanExporter;
}

/**
 * The app's own span processors, as NodeSDK would build them: `spanProcessors` as given, else a
 * batch processor for `traceExporter`, else the OTLP exporter of the environment (none where
 * OTEL_TRACES_EXPORTER=none). Other OTEL_TRACES_EXPORTER values: pass the exporter in code.
 */
function appProcessors(config: SdkConfiguration): SpanProcessor[] {
  if (config.spanProcessors) return config.spanProcessors;
  if (config.traceExporter) return [new BatchSpanProcessor({ exporter: config.traceExporter })];
  const named = getStringFromEnv('OTEL_TRACES_EXPORTER');
  if (named === 'none') return [];
  if (named !== undefined && named !== 'otlp')
    diag.warn(`withJourneys: OTEL_TRACES_EXPORTER=${named}: pass that exporter as traceExporter`);
  return [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })];
}

export function withJourneys<T extends SdkConfiguration>(
  config: T,
  options: JourneyOptions = {},
): T & Required<Pick<SdkConfiguration, 'sampler' | 'spanProcessors'>> {
  markJourneysConfigured();
  const exporter = options.spanExporter ?? acktrailExporter(options.endpoint, options.headers);
  const added =
    options.addInstrumentations === false
      ? []
      : instrumentations({ amqp: options.amqp, instrumentPgAndHttp: options.instrumentPgAndHttp });
  return {
    ...config,
    sampler: journeySampler(
      config.sampler ??
        samplerFromEnv((m) => {
          diag.warn(m);
        }),
    ),
    spanProcessors: [
      ...appProcessors(config),
      new JourneySpanProcessor({ exporter, sampled: options.sampled }),
    ],
    instrumentations: [...(config.instrumentations ?? []), ...added],
  };
}
