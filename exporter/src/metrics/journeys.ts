// The journeys' metrics: derived from stored steps, the receiver's own and the coverage of spans.
// docs/metrics.md, "Journeys", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

/** What a span-derived counter counts, said in its HELP text (docs/adopting.md, "Sampling"). */
const FROM_SPANS =
  " Counted from spans, each with its adjusted count where its tracestate carries a sampling threshold (ot=th); spans a service's sampler drops before they reach acktrail are not counted: /api/coverage names services that sample.";

const REJECTED_HELP =
  "Deliveries a consumer rejected or nacked, by queue and what the broker does with the message: requeued, dead_lettered (the queue has a dead-letter exchange), discarded (it has none: the message is gone), rejected (what the broker does with it is not known: the queue is not in the broker topology). A return past a quorum queue's delivery limit counts as dead_lettered (or discarded), as the broker dead-letters it. Where no consumer whose instrumentation records rejects reads a queue (its consumers use the .NET client, pika, aio-pika, Spring or Bunny, or are not traced), each dead letter dead-letter parking takes from its dead-letter queue counts as dead_lettered, inferred from the broker's x-death." +
  FROM_SPANS;

export const JOURNEY_METRICS = [
  {
    name: 'acktrail_stage_duration_seconds',
    type: 'histogram',
    help: 'Duration of each stage of an event journey, from its spans.',
    labels: ['stage'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    doc: "`publish_confirm` (publish span), `processing` (deliver span, delivery to ack), `provider_call`, `outbox_wait` (outbox insert to publish), `queue_wait` (publish to delivery), `end_to_end` (the journey's first outbox insert or publish to the ack of the delivery that did the work: `journeys.words.results.done`)",
  },
  {
    name: 'acktrail_duplicate_publishes_total',
    type: 'counter',
    help: 'Publishes of an event_id that had already been published.',
    labels: [],
    doc: 'publishes of an event_id that had been published before',
  },
  {
    name: 'acktrail_redeliveries_total',
    type: 'counter',
    help: 'Deliveries with the redelivered flag set, from journey steps.' + FROM_SPANS,
    labels: ['queue'],
    doc: 'deliveries with the redelivered flag',
  },
  {
    name: 'acktrail_dead_lettered_total',
    type: 'counter',
    help: 'Events dead-lettered, by the queue they left and the reason.' + FROM_SPANS,
    labels: ['queue', 'reason'],
    doc: 'events dead-lettered (stage `dead_letter`), by the queue they left',
  },
  {
    name: 'acktrail_unroutable_publishes_total',
    type: 'counter',
    help: 'Mandatory publishes returned by the broker as unroutable.' + FROM_SPANS,
    labels: ['exchange', 'routing_key'],
    doc: 'mandatory publishes the broker returned',
  },
  {
    name: 'acktrail_spans_received_total',
    type: 'counter',
    help: 'Spans received on /v1/traces by outcome: accepted (stored as a journey step), ignored (no event_id or stage), rejected (invalid; reported in partialSuccess).',
    labels: ['outcome'],
    values: { outcome: ['accepted', 'ignored', 'rejected'] },
    doc: '`accepted` (stored), `ignored` (no event_id or no stage: database and HTTP spans), `rejected` (invalid span, or a whole request that could not be decoded, counted once)',
  },
  {
    name: 'acktrail_journey_steps_stored_total',
    type: 'counter',
    help: 'Journey steps committed to the store (retried exports of stored spans excluded).',
    labels: [],
    doc: 'steps committed to the store',
  },
  {
    name: 'acktrail_journey_store_write_duration_seconds',
    type: 'histogram',
    help: "How long the journey store's writes took, each a transaction of one or more requests' steps (the partition check, the COPY, the insert, the reads beside it, the commit); result stored or failed. Steady through a day whatever the partition holds; a rising p90 is a store falling behind its senders.",
    labels: ['result'],
    values: { result: ['stored', 'failed'] },
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    doc: "each store write's transaction (one or more requests' steps: the partition check, COPY, insert, the reads beside it, commit), `result` `stored` or `failed`; flat through a day whatever today's partition holds (`npm run bench -- day-fill`); AcktrailJourneyWritesSlow reads its p90",
  },
  {
    name: 'acktrail_messages_rejected_total',
    type: 'counter',
    help: REJECTED_HELP,
    labels: ['queue', 'fate'],
    values: { fate: ['requeued', 'dead_lettered', 'discarded', 'rejected'] },
    doc: "deliveries a consumer rejected or nacked, by what the broker does with the message: `requeued`, `dead_lettered` (the queue has a dead-letter exchange), `discarded` (it has none: the message is gone; alert AcktrailMessagesDiscarded), `rejected` (the queue is out of scope, so what it does with the message is not known; the same word the journey uses for such a delivery). Each work queue's `dead_lettered` or `discarded` series starts at 0",
  },
  {
    name: 'acktrail_coverage_spans_total',
    type: 'counter',
    help: 'Spans received that stand for a journey stage, by service and stage, with or without an event id (GET /api/coverage).',
    labels: ['service', 'stage'],
    doc: 'spans received that stand for a journey stage, with or without an event id ([api.md](api.md#instrumentation-coverage-get-apicoverage))',
  },
  {
    name: 'acktrail_coverage_spans_with_event_id_total',
    type: 'counter',
    help: 'Of acktrail_coverage_spans_total, the spans that carried an event id.',
    labels: ['service', 'stage'],
    doc: 'of those, the spans that carried an event id',
  },
  {
    name: 'acktrail_coverage_attribute_missing_total',
    type: 'counter',
    help: 'Spans without an attribute journeys rely on, by service, stage and attribute (event_id, queue, delivery_attempt, aggregate_id); GET /api/coverage says how to set each.',
    labels: ['service', 'stage', 'attribute'],
    doc: 'spans without an attribute journeys rely on: `event_id`, `queue`, `delivery_attempt`, `aggregate_id`',
  },
  {
    name: 'acktrail_aggregate_ordering_total',
    type: 'counter',
    help: 'Deliveries out of an aggregate version order, by kind: gap (versions skipped), out_of_order (an older version after a newer one), stale (the consumer skipped a stale event: its result is a journeys.words.results.stale word).',
    labels: ['kind'],
    values: { kind: ['gap', 'out_of_order', 'stale'] },
    doc: "deliveries out of an aggregate's version order (`acktrail.aggregate_version`): `gap` (versions skipped), `out_of_order` (an older version after a newer one), `stale` (the consumer's result is a `journeys.words.results.stale` word)",
  },
  {
    name: 'acktrail_sampling_thresholds_refused_total',
    type: 'counter',
    help: "Spans whose tracestate sampling threshold (ot=th) claimed an adjusted count past journeys.maxAdjustedCount: each counted as one message in the span-derived counters. A sender's claim, never trusted past the bound.",
    labels: [],
    doc: 'spans whose tracestate sampling threshold (`ot=th`) claimed an adjusted count past `journeys.maxAdjustedCount`: each counted as one message',
  },
] as const satisfies readonly MetricSpec[];
