// @acktrail/conventions: the span contract between a pipeline's instrumentation and acktrail's
// exporter, written once. Attribute names come from OpenTelemetry's messaging semantic
// conventions first (the current names, and the older ones instrumentations still emit);
// acktrail's own names only where no convention exists. They refine a journey: none of them is
// required for a correct verdict (docs/api.md, "Which spans become steps").
// @acktrail/instrument writes these names; the exporter reads them and stores Steps.

export type AttributeValue = string | number | boolean;

/** acktrail's own attributes: what no semantic convention names. */
export const ATTR = {
  /** The business event's id; also read from the message id and the baggage entry below. */
  eventId: 'acktrail.event_id',
  /** The journey stage of the span (STAGES); inferred from the span when absent. */
  stage: 'acktrail.stage',
  aggregateType: 'acktrail.aggregate_type',
  aggregateId: 'acktrail.aggregate_id',
  /** A whole number, where the pipeline versions its aggregates (ordering checks). */
  aggregateVersion: 'acktrail.aggregate_version',
  /** The queue a delivery came from (the stock span only names it: "<queue> process"). */
  queue: 'acktrail.queue',
  redelivered: 'acktrail.delivery.redelivered',
  /** 1 for the first delivery; from the pipeline's header or x-death counts. */
  attempt: 'acktrail.delivery.attempt',
  /** SETTLE_OUTCOMES: on a settle span, or on the delivery span itself. */
  settleOutcome: 'acktrail.settle.outcome',
  deadLetterReason: 'acktrail.dead_letter.reason',
  /** PUBLISH_OUTCOMES */
  publishOutcome: 'acktrail.publish.outcome',
  /**
   * What the consumer decided, in the pipeline's own words; the exporter's configuration
   * (journeys.words.results) says which of them mean done, already done or stale.
   */
  result: 'acktrail.result',
  retryDelayMs: 'acktrail.retry.delay_ms',
  providerName: 'acktrail.provider.name',
  providerKey: 'acktrail.provider.idempotency_key',
  /** PROVIDER_OUTCOMES */
  providerOutcome: 'acktrail.provider.outcome',
  /**
   * true on a span the app's trace sampler dropped and acktrail's recording sampler kept for the
   * journey (@acktrail/instrument's journeySampler): the app's trace backend never saw it.
   */
  recordedOnly: 'acktrail.trace.recorded_only',
} as const;

/** OpenTelemetry semantic-convention names, current (what acktrail writes). */
export const SEMCONV = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destination: 'messaging.destination.name',
  routingKey: 'messaging.rabbitmq.destination.routing_key',
  messageId: 'messaging.message.id',
  deliveryTag: 'messaging.rabbitmq.message.delivery_tag',
  httpStatus: 'http.response.status_code',
  errorType: 'error.type',
} as const;

/** Older names of the same facts, as instrumentations still emit them: read, never written. */
export const SEMCONV_OLD: Readonly<Record<string, readonly string[]>> = {
  [SEMCONV.operationType]: ['messaging.operation'],
  [SEMCONV.destination]: ['messaging.destination'],
  [SEMCONV.routingKey]: ['messaging.rabbitmq.routing_key'],
  [SEMCONV.messageId]: ['messaging.message_id'],
  [SEMCONV.httpStatus]: ['http.status_code'],
};

/** The names a fact is read from: its current name first, then the older ones. */
export const namesOf = (current: string): readonly string[] => [
  current,
  ...(SEMCONV_OLD[current] ?? []),
];

/** Where an event id is read from, first found. */
export const EVENT_ID_ATTRIBUTES = [ATTR.eventId, ...namesOf(SEMCONV.messageId)] as const;

/**
 * The shape of an event id (and of a journey's id: a message id, a Celery task id): 1-128
 * printable ASCII characters. An id of another shape is never a journey's key.
 */
export const EVENT_ID_SHAPE = /^[\x21-\x7e]{1,128}$/;

/** The baggage entry that carries the event id to every span of the same work. */
export const EVENT_BAGGAGE = 'acktrail.event_id';

/**
 * The stages of a journey. `publish` is any publish; `outbox.publish` one made by an outbox relay
 * (outbox stages appear only when an outbox is involved).
 */
export const STAGES = [
  'outbox.insert',
  'outbox.publish',
  'publish',
  'deliver',
  'result.commit',
  'provider.call',
  'settle',
  'retry.publish',
  'dead_letter',
] as const;
export type Stage = (typeof STAGES)[number];

/** The stages that put a message on the broker for the first time (a retry is retry.publish). */
export const PUBLISH_STAGES = ['outbox.publish', 'publish'] as const satisfies readonly Stage[];
export const isPublish = (stage: string): boolean =>
  (PUBLISH_STAGES as readonly string[]).includes(stage);

/** How a delivery was settled. A reject or nack with requeue is `nack_requeue`. */
export const SETTLE_OUTCOMES = ['ack', 'nack_requeue', 'nack', 'reject'] as const;
export type SettleOutcome = (typeof SETTLE_OUTCOMES)[number];

export const PUBLISH_OUTCOMES = ['confirmed', 'nacked', 'unroutable'] as const;

export const PROVIDER_OUTCOMES = [
  'success',
  'transient_error',
  'permanent_error',
  'timeout',
  'idempotent_replay',
] as const;

/**
 * A step's own anomaly, decided when it is stored: what `GET /api/events?anomaly=` and
 * `GET /api/journeys?anomaly=` filter by.
 */
export const STEP_ANOMALIES = [
  'redelivered',
  'retried',
  'dead_lettered',
  'discarded',
  'rejected',
  'unroutable',
  'duplicate_provider_call',
  'task_failed',
] as const;

/** The instrumentations whose spans acktrail reads (a stored step's `acktrail.sdk`; `?sdk=`). */
export const SDK_PROFILES = [
  'acktrail',
  'node-amqplib',
  'java-agent',
  'spring-amqp',
  'dotnet-client',
  'python-pika',
  'python-aio-pika',
  'ruby-bunny',
  'masstransit',
  'unknown',
] as const;

/** What a journey's verdict says of it, in one word: `GET /api/journeys?verdict=` and its rows. */
export const VERDICT_CLASSES = [
  'processed',
  'failed',
  'dead_lettered',
  'in_flight',
  'stuck',
  'not_traced',
  'settle_inferred',
  'settle_not_recorded',
] as const;

/** A journey step: one span (or event) that belongs to an event, reduced to what is stored. */
export interface Step<S extends string = Stage> {
  eventId: string;
  /** Start, microseconds since the epoch. */
  timeUs: number;
  durationUs: number;
  stage: S;
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  status: 'unset' | 'ok' | 'error';
  statusMessage: string | null;
  aggregateType: string | null;
  aggregateId: string | null;
  anomaly: string | null;
  /** The allow-listed attributes, under their current names. */
  attrs: Record<string, AttributeValue>;
}
