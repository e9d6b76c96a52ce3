// Exemplars: for each sample of the metrics that come from journey steps (a histogram's bucket, a
// counter's series), the trace id and event id of the latest observation it counted, so that a
// spike in Grafana or on the dashboard leads to the events behind it. Served only in the
// OpenMetrics exposition (openmetrics.ts), the one format that has them. Bounded as the metrics'
// own labels are: one exemplar per sample line.

/** What an exemplar points at. */
export interface ExemplarIds {
  traceId?: string | null;
  eventId?: string | null;
}

export interface Exemplar {
  /** trace_id and event_id, as far as they fit OpenMetrics' 128 characters. */
  labels: Record<string, string>;
  value: number;
  timestampMs: number;
}

/** OpenMetrics: label names and values of an exemplar together at most 128 characters. */
const MAX_EXEMPLAR_CHARS = 128;

/** The key of a sample's labels whatever their order: sorted name=value pairs. */
export function labelKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\u0000');
}

function exemplarLabels(ids: ExemplarIds): Record<string, string> | null {
  const labels: Record<string, string> = {};
  let chars = 0;
  for (const [name, value] of [
    ['trace_id', ids.traceId],
    ['event_id', ids.eventId],
  ] as const) {
    if (!value || chars + name.length + value.length > MAX_EXEMPLAR_CHARS) continue;
    labels[name] = value;
    chars += name.length + value.length;
  }
  return chars ? labels : null;
}

export class Exemplars {
  /** Sample name (`x_bucket`, `y_total`) -> label key -> the latest exemplar. */
  private readonly samples = new Map<string, Map<string, Exemplar>>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A histogram observation: its exemplar goes on the bucket the value falls in (the smallest
   * upper bound at or above it), as client_golang does.
   */
  observe(
    histogram: string,
    buckets: readonly number[],
    labels: Record<string, string>,
    value: number,
    ids: ExemplarIds,
  ): void {
    const bound = buckets.find((b) => value <= b);
    this.set(
      `${histogram}_bucket`,
      { ...labels, le: bound === undefined ? '+Inf' : String(bound) },
      value,
      ids,
    );
  }

  /** A counter increment by `value`. */
  inc(counter: string, labels: Record<string, string>, value: number, ids: ExemplarIds): void {
    this.set(counter, labels, value, ids);
  }

  /** The sample names that have exemplars (the exposition looks only at their lines). */
  names(): ReadonlySet<string> {
    return new Set(this.samples.keys());
  }

  get(sample: string, key: string): Exemplar | undefined {
    return this.samples.get(sample)?.get(key);
  }

  private set(sample: string, labels: Record<string, string>, value: number, ids: ExemplarIds) {
    const exemplar = exemplarLabels(ids);
    if (!exemplar) return;
    let series = this.samples.get(sample);
    if (!series) {
      series = new Map();
      this.samples.set(sample, series);
    }
    series.set(labelKey(labels), { labels: exemplar, value, timestampMs: this.now() });
  }
}
