// What one metric is, as data: its name, type, help, labels, buckets and the words of its row in
// docs/metrics.md. The catalogue (one file per section of docs/metrics.md, listed in catalogue.ts) holds every
// metric acktrail exposes; prom-client registrations and the exposition families are made from it
// (catalogue.ts), and the docs' tables are generated from it (docs.ts, npm run generate).

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricSpec {
  /** As exposed: a counter's ends with `_total` (prom-client adds nothing). */
  name: `acktrail_${string}`;
  type: MetricType;
  /** The exposition's HELP text. */
  help: string;
  /** Label names, each bounded (label-bounds.ts says how). */
  labels: readonly string[];
  /**
   * The values a label may take where they are a fixed set (catalogue.test.ts holds the code's
   * own lists to them); a label not named here is bounded as label-bounds.ts says.
   */
  values?: Readonly<Record<string, readonly string[]>>;
  /** A histogram's buckets, or the configuration key that sets them. */
  buckets?: readonly number[] | { config: string };
  /** Its row's meaning in docs/metrics.md (markdown). */
  doc: string;
}

/** The sections of docs/metrics.md that hold a generated table, by the catalogue file of each. */
export const SECTIONS = {
  queues: 'Queues',
  outbox: 'Outbox',
  confirmations: 'Confirmations',
  providers: 'Providers',
  journeys: 'Journeys',
  celery: 'Celery',
  'dead-letters': 'Dead letters',
  self: 'Self-monitoring',
} as const;
export type SectionId = keyof typeof SECTIONS;

/** A family written straight to exposition bytes (exposition/families.ts reads this shape). */
export interface FamilySpec {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
}
