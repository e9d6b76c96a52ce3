// What the overview draws: each chart's PromQL over acktrail's metrics (docs/metrics.md), and the
// "problems now" strip, whose entries are the alert rules of prometheus/rules/acktrail.rules.yml:
// the strip evaluates the expressions Prometheus has loaded for those alerts, so the page and the
// pager can never disagree.
import { oneReplica } from '../data/replicas';

export type Unit = 'count' | 'seconds' | 'per_second' | 'ratio';

export interface ChartQuery {
  /** PromQL; `$rw` becomes the range's rate window. */
  expr: string;
  /** The series' name from its labels. */
  legend: (labels: Record<string, string>) => string;
}

export interface ChartSpec {
  id: string;
  title: string;
  unit: Unit;
  queries: ChartQuery[];
  /** A horizontal line: an objective or an alert threshold. */
  reference?: { value: number; label: string };
  /** What an empty chart means, and what to do about it. */
  empty: string;
  /**
   * A histogram's `_bucket` series whose exemplars mark the slowest events of the range, each a
   * link to its journey (Prometheus with exemplar storage).
   */
  slowest?: string;
  /**
   * One series per queue (or other open-ended label): the chart draws the `top` largest by their
   * latest value and sums the rest into one "others" line, so a broker of a thousand queues
   * draws as readably as one of ten. Only for quantities that add up (counts, rates).
   */
  topN?: boolean;
}

/** How many series a per-queue chart draws (`?top=`), the rest summed as "others". */
export const TOP_CHOICES = [5, 10, 20, 50] as const;
export const DEFAULT_TOP = 10;

export function parseTop(value: string | string[] | undefined): number {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return (TOP_CHOICES as readonly number[]).includes(n) ? n : DEFAULT_TOP;
}

export interface NamedSeries {
  name: string;
  points: [number, number][];
}

/**
 * The `n` series with the largest latest value (ties by name), and the others summed point by
 * point into one series named "others (K)"; all of them when there are n + 1 or fewer.
 */
export function topSeries(series: NamedSeries[], n: number): NamedSeries[] {
  if (series.length <= n + 1) return series;
  const last = (s: NamedSeries) => s.points.at(-1)?.[1] ?? 0;
  const ranked = [...series].sort((a, b) => last(b) - last(a) || a.name.localeCompare(b.name));
  const rest = ranked.slice(n);
  const sums = new Map<number, number>();
  for (const s of rest) for (const [t, v] of s.points) sums.set(t, (sums.get(t) ?? 0) + v);
  const others = {
    name: `others (${rest.length})`,
    points: [...sums].sort((a, b) => a[0] - b[0]),
  };
  return [...ranked.slice(0, n), others];
}

const byQueue = (l: Record<string, string>) => `${l.role ?? '?'} · ${l.queue ?? '?'}`;
const QUEUES_EMPTY =
  'No queue metrics: is the exporter scraped, and does its rabbitmq collector reach the management API?';
const ERRORS = 'transient_error|permanent_error|timeout';

export function overviewCharts(sloSeconds: number): ChartSpec[] {
  const quantile = (q: number) => ({
    expr: `histogram_quantile(${q}, sum by (le) (rate(acktrail_confirmation_latency_seconds_bucket[$rw])))`,
    legend: () => `p${Math.round(q * 100)}`,
  });
  return [
    {
      id: 'ready',
      topN: true,
      title: 'Ready messages by queue',
      unit: 'count',
      queries: [
        {
          expr: `sum by (role, queue) (${oneReplica('acktrail_queue_messages_ready')})`,
          legend: byQueue,
        },
      ],
      empty: QUEUES_EMPTY,
    },
    {
      id: 'unacked',
      topN: true,
      title: 'Unacked messages by queue',
      unit: 'count',
      queries: [
        {
          expr: `sum by (role, queue) (${oneReplica('acktrail_queue_messages_unacked')})`,
          legend: byQueue,
        },
      ],
      empty: QUEUES_EMPTY,
    },
    {
      id: 'consumers',
      topN: true,
      title: 'Consumers by queue',
      unit: 'count',
      queries: [
        {
          expr: `sum by (role, queue) (${oneReplica('acktrail_queue_consumers')})`,
          legend: byQueue,
        },
      ],
      empty: QUEUES_EMPTY,
    },
    {
      id: 'dead-letter-depth',
      topN: true,
      title: 'Dead-letter queue depth',
      unit: 'count',
      queries: [
        {
          expr: `sum by (role, queue) (${oneReplica('acktrail_queue_messages_ready{role="dead_letter"}')})`,
          legend: byQueue,
        },
      ],
      empty: 'No queue with role dead_letter: see rabbitmq.roles in docs/metrics.md.',
    },
    {
      id: 'redelivery-rate',
      topN: true,
      title: 'Redeliveries per second',
      unit: 'per_second',
      queries: [
        {
          expr: `sum by (role, queue) (${oneReplica('rate(acktrail_queue_messages_redelivered_total[$rw])')})`,
          legend: byQueue,
        },
      ],
      empty: QUEUES_EMPTY,
    },
    {
      id: 'outbox-backlog',
      title: 'Outbox backlog (unpublished rows)',
      unit: 'count',
      queries: [
        {
          expr: `sum by (table) (${oneReplica('acktrail_outbox_unpublished_events')})`,
          legend: (l) => l.table ?? 'outbox',
        },
      ],
      empty: 'No outbox metrics: does the exporter reach the pipeline database (DATABASE_URL)?',
    },
    {
      id: 'outbox-age',
      title: 'Oldest unpublished outbox row',
      unit: 'seconds',
      queries: [
        {
          expr: 'max by (table) (acktrail_outbox_oldest_unpublished_age_seconds)',
          legend: (l) => l.table ?? 'outbox',
        },
      ],
      reference: { value: 60, label: 'AcktrailOutboxStuck' },
      empty: 'No outbox metrics: does the exporter reach the pipeline database (DATABASE_URL)?',
    },
    {
      id: 'confirmation-latency',
      title: 'Order to confirmation latency',
      unit: 'seconds',
      queries: [quantile(0.5), quantile(0.95), quantile(0.99)],
      reference: { value: sloSeconds, label: 'SLO' },
      empty: 'No confirmations committed in this range.',
      slowest: 'acktrail_confirmation_latency_seconds_bucket',
    },
    {
      id: 'provider-rate',
      title: 'Provider requests per second',
      unit: 'per_second',
      queries: [
        {
          expr: `sum by (provider, outcome) (${oneReplica('rate(acktrail_provider_requests_total[$rw])')})`,
          legend: (l) => `${l.provider ?? '?'} · ${l.outcome ?? '?'}`,
        },
      ],
      empty: 'No provider calls recorded in this range.',
    },
    {
      id: 'provider-errors',
      title: 'Provider error ratio',
      unit: 'ratio',
      queries: [
        {
          expr: `sum by (provider) (${oneReplica(`rate(acktrail_provider_requests_total{outcome=~"${ERRORS}"}[$rw])`)}) / sum by (provider) (${oneReplica('rate(acktrail_provider_requests_total[$rw])')})`,
          legend: (l) => l.provider ?? '?',
        },
      ],
      reference: { value: 0.2, label: 'AcktrailProviderErrorRatioHigh' },
      empty: 'No provider calls recorded in this range.',
    },
    {
      id: 'stage-durations',
      title: 'Stage durations, p95',
      unit: 'seconds',
      queries: [
        {
          expr: 'histogram_quantile(0.95, sum by (le, stage) (rate(acktrail_stage_duration_seconds_bucket[$rw])))',
          legend: (l) => l.stage ?? '?',
        },
      ],
      empty:
        'No journey steps in this range: the pipeline sends them when OTEL_EXPORTER_OTLP_ENDPOINT points at the exporter.',
    },
  ];
}

/** The strip: a problem is present when one of its alerts' expressions returns a series now. */
/** Each problem of the strip, its alert rules, and the journeys list filtered to it. */
export const PROBLEMS = [
  {
    id: 'outbox',
    title: 'Outbox stuck',
    alerts: ['AcktrailOutboxStuck', 'AcktrailOutboxBacklogGrowing'],
    journeys: '/events?verdict=stuck&since=7d',
  },
  {
    id: 'consumers',
    title: 'Consumers down',
    alerts: ['AcktrailConsumersDown'],
    // The queues table filtered to the same queues: STOP is "no consumer while messages wait".
    list: '/?qstatus=stop#queues',
    journeys: '/events?verdict=in_flight&since=1h',
  },
  {
    id: 'dead-letters',
    title: 'Dead-letters growing',
    alerts: ['AcktrailDeadLettersGrowing'],
    journeys: '/events?verdict=dead_lettered&since=1h',
  },
  {
    id: 'provider',
    title: 'Provider errors high',
    alerts: ['AcktrailProviderErrorRatioHigh'],
    journeys: '/events?stage=provider.call&since=1h',
  },
] as const;
