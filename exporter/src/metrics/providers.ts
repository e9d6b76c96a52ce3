// The provider collector's metrics: calls to external providers by outcome, and their durations.
// docs/metrics.md, "Providers", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

export const PROVIDER_METRICS = [
  {
    name: 'acktrail_provider_requests_total',
    type: 'counter',
    help: 'Provider calls recorded since the exporter started, by provider and outcome.',
    labels: ['provider', 'outcome'],
    doc: 'provider calls recorded since the exporter started; outcome is `success`, `transient_error`, `permanent_error`, `timeout`, `idempotent_replay` (anything else: `other`)',
  },
  {
    name: 'acktrail_provider_request_duration_seconds',
    type: 'histogram',
    help: 'Duration of provider calls recorded since the exporter started.',
    labels: ['provider'],
    buckets: { config: 'provider.buckets' },
    doc: 'their durations',
  },
] as const satisfies readonly MetricSpec[];
