// Every metric acktrail exposes, one declaration each (one file per section of docs/metrics.md:
// queues.ts, outbox.ts, … self.ts). Code registers a metric by its name only:
// `new Counter({ ...counter(name), registers })` takes its name, help, labels and buckets from
// here, and `family(name)` does the same for the families written straight to exposition bytes.
// catalogue.test.ts fails when a metric is made any other way, when a name here is registered
// nowhere, when a label has no bound, and when a label's fixed values (`values`) drift from the
// code's own lists; docs/metrics.md's tables are generated from it (docs.ts).
import { CELERY_METRICS } from './celery.js';
import { CONFIRMATION_METRICS } from './confirmations.js';
import { DEAD_LETTER_METRICS } from './dead-letters.js';
import { JOURNEY_METRICS } from './journeys.js';
import { OUTBOX_METRICS } from './outbox.js';
import { PROVIDER_METRICS } from './providers.js';
import { QUEUE_METRICS } from './queues.js';
import { SELF_METRICS } from './self.js';
import type { FamilySpec, MetricSpec, MetricType, SectionId } from './spec.js';

/** The fixed label values the code writes from these lists, imported from here. */
export { SKIP_REASONS } from './celery.js';
export { COUNTER_SOURCES } from './queues.js';
export { REFUSAL_REASONS } from './self.js';

/** Each section's metrics, in the order docs/metrics.md shows them. */
export const CATALOGUE = {
  queues: QUEUE_METRICS,
  outbox: OUTBOX_METRICS,
  confirmations: CONFIRMATION_METRICS,
  providers: PROVIDER_METRICS,
  journeys: JOURNEY_METRICS,
  celery: CELERY_METRICS,
  'dead-letters': DEAD_LETTER_METRICS,
  self: SELF_METRICS,
} as const satisfies Record<SectionId, readonly MetricSpec[]>;

type Spec = (typeof CATALOGUE)[SectionId][number];
export type MetricName = Spec['name'];
type NameOf<T extends MetricType> = Extract<Spec, { type: T }>['name'];
type LabelsOf<N extends MetricName> = Extract<Spec, { name: N }>['labels'][number];

export const METRICS: readonly MetricSpec[] = Object.values(CATALOGUE).flat();
const BY_NAME = new Map<string, MetricSpec>(METRICS.map((m) => [m.name, m]));

/** The metric of this name: an error names it when the catalogue has none (a typo, at start). */
export function metricSpec(name: string): MetricSpec {
  const spec = BY_NAME.get(name);
  if (!spec) throw new Error(`${name} is not in the metrics catalogue (exporter/src/metrics/)`);
  return spec;
}

interface Registration<N extends MetricName> {
  name: N;
  help: string;
  labelNames: readonly LabelsOf<N>[];
}

function registration<N extends MetricName>(name: N, type: MetricType): Registration<N> {
  const spec = metricSpec(name);
  if (spec.type !== type) throw new Error(`${name} is a ${spec.type}, not a ${type}`);
  return { name, help: spec.help, labelNames: spec.labels as readonly LabelsOf<N>[] };
}

/** A counter's name, help and labels, for prom-client's Counter. */
export const counter = <N extends NameOf<'counter'>>(name: N) => registration(name, 'counter');

/** A gauge's name, help and labels, for prom-client's Gauge. */
export const gauge = <N extends NameOf<'gauge'>>(name: N) => registration(name, 'gauge');

/**
 * A histogram's name, help, labels and buckets, for prom-client's Histogram; `configured`: the
 * buckets the configuration key the catalogue names gave.
 */
export function histogram<N extends NameOf<'histogram'>>(
  name: N,
  configured?: readonly number[],
): Registration<N> & { buckets: number[] } {
  const { buckets } = metricSpec(name);
  const fixed = Array.isArray(buckets) ? (buckets as readonly number[]) : null;
  if (!fixed && !configured) throw new Error(`${name}: its buckets come from the configuration`);
  return { ...registration(name, 'histogram'), buckets: [...(fixed ?? configured!)] };
}

/** A histogram's fixed buckets (an exemplar's bucket is chosen by them too). */
export function bucketsOf(name: NameOf<'histogram'>): number[] {
  const { buckets } = metricSpec(name);
  if (!Array.isArray(buckets)) throw new Error(`${name}: its buckets come from the configuration`);
  return [...(buckets as readonly number[])];
}

/** A family written straight to exposition bytes (exposition/families.ts): name, help, type. */
export function family(name: NameOf<'gauge'> | NameOf<'counter'>): FamilySpec {
  const spec = metricSpec(name);
  return { name, help: spec.help, type: spec.type === 'counter' ? 'counter' : 'gauge' };
}
