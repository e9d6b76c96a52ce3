// The confirmation collectors' metrics: aggregate-to-confirmation latency and pending aggregates.
// docs/metrics.md, "Confirmations", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

export const CONFIRMATION_METRICS = [
  {
    name: 'acktrail_confirmation_latency_seconds',
    type: 'histogram',
    help: 'Time from an aggregate created to its result committed, for results seen since the exporter started.',
    labels: ['event_type'],
    buckets: { config: 'confirmations.buckets' },
    doc: 'aggregate created → result committed (`confirmations.aggregates` → `confirmations.results`), for results committed since the exporter started',
  },
  {
    name: 'acktrail_oldest_pending_confirmation_age_seconds',
    type: 'gauge',
    help: 'Age of the oldest aggregate still waiting for its result; 0 when none waits.',
    labels: [],
    doc: 'age of the oldest aggregate whose status is still `pendingValue`; 0 when none (needs `aggregates.status`)',
  },
  {
    name: 'acktrail_aggregates',
    type: 'gauge',
    help: "Aggregates by the status of their event's work (the pipeline's own values, e.g. pending, sent, failed).",
    labels: ['status'],
    doc: 'aggregates by status (`pendingValue` and `failedValue` always present), from the `aggregateCounts` section',
  },
] as const satisfies readonly MetricSpec[];
