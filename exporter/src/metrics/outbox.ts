// The outbox collector's metrics: unpublished rows and their age, per configured table.
// docs/metrics.md, "Outbox", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

export const OUTBOX_METRICS = [
  {
    name: 'acktrail_outbox_unpublished_events',
    type: 'gauge',
    help: 'Outbox rows not yet published (published_at IS NULL).',
    labels: ['table'],
    doc: 'rows whose `publishedAt` column is null',
  },
  {
    name: 'acktrail_outbox_oldest_unpublished_age_seconds',
    type: 'gauge',
    help: 'Age of the oldest unpublished outbox row; 0 when there is none.',
    labels: ['table'],
    doc: 'age of the oldest of them; **0 when there is none, never absent**',
  },
  {
    name: 'acktrail_outbox_published_events_total',
    type: 'counter',
    help: 'Outbox rows seen published since the exporter started.',
    labels: ['table'],
    doc: 'rows seen published since the exporter started',
  },
] as const satisfies readonly MetricSpec[];
