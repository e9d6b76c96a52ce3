// acktrail's span attribute names (../../docs/api.md and the design's contract), next to the
// messaging semantic-convention names the hooks also set.
export const ATTR = {
  eventId: 'acktrail.event_id',
  stage: 'acktrail.stage',
  aggregateType: 'acktrail.aggregate_type',
  aggregateId: 'acktrail.aggregate_id',
  aggregateVersion: 'acktrail.aggregate_version',
  queue: 'acktrail.queue',
  redelivered: 'acktrail.delivery.redelivered',
  attempt: 'acktrail.delivery.attempt',
  settleOutcome: 'acktrail.settle.outcome',
  deadLetterReason: 'acktrail.dead_letter.reason',
  publishOutcome: 'acktrail.publish.outcome',
  result: 'acktrail.result',
  retryDelayMs: 'acktrail.retry.delay_ms',
  providerName: 'acktrail.provider.name',
  providerKey: 'acktrail.provider.idempotency_key',
  providerOutcome: 'acktrail.provider.outcome',
} as const;

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

export type Stage =
  | 'outbox.insert'
  | 'outbox.publish'
  | 'deliver'
  | 'result.commit'
  | 'provider.call'
  | 'settle'
  | 'retry.publish'
  | 'dead_letter';

/** The baggage entry that carries the event id to every span of the same work. */
export const EVENT_BAGGAGE = 'acktrail.event_id';
