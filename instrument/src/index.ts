// @acktrail/instrument: OpenTelemetry for Node pipelines on RabbitMQ.
export { instrumentations, startTracing, type Tracing, type TracingOptions } from './sdk.js';
export {
  amqplibInstrumentation,
  recordResult,
  trackReturns,
  type AmqpConventions,
} from './amqplib.js';
export { withJourneys, type JourneyOptions, type SdkConfiguration } from './journeys.js';
export {
  JourneySpanProcessor,
  isJourneySpan,
  journeySampler,
  samplerFromEnv,
  type JourneyProcessorOptions,
} from './sampling.js';
export { EventBaggageSpanProcessor, withEventBaggage } from './baggage.js';
export {
  continueFromOutbox,
  withOutboxInsert,
  type OutboxEvent,
  type TraceCarrier,
} from './outbox.js';
export {
  withProviderCall,
  withResultCommit,
  type ProviderCall,
  type ProviderOutcome,
} from './spans.js';
export { ATTR, SEMCONV, EVENT_BAGGAGE, type Stage } from '@acktrail/conventions';
