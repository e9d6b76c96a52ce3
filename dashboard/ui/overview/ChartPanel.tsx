// One chart of the overview, fetched on the server inside its own Suspense boundary, so a slow or
// failing query delays or empties this panel only. A chart with `slowest` also marks the slowest
// events of the range (exemplars) and lists them, each a link to its journey.
import Link from 'next/link';
import { topSeries, type ChartSpec } from '@/lib/charts/overview';
import { queryExemplars, queryRange } from '@/lib/data/prometheus';
import type { TimeRange } from '@/lib/data/range';
import { TimeSeriesChart } from '@/ui/charts';
import { formatTime, formatValue } from './format';
import type { ChartMark, ChartSeries } from './TimeSeriesChart';

const SLOWEST = 3;

async function slowest(spec: ChartSpec, range: TimeRange): Promise<ChartMark[]> {
  if (!spec.slowest) return [];
  const r = await queryExemplars(spec.slowest, range);
  if (r.kind !== 'ok') return [];
  const byEvent = new Map<string, ChartMark>();
  for (const e of r.value) {
    const id = e.labels.event_id;
    if (!id || !Number.isFinite(e.value)) continue;
    const seen = byEvent.get(id);
    if (!seen || e.value > seen.value)
      byEvent.set(id, { t: e.timestamp, value: e.value, label: id });
  }
  return [...byEvent.values()].sort((a, b) => b.value - a.value).slice(0, SLOWEST);
}

export async function ChartPanel({
  spec,
  range,
  top,
}: {
  spec: ChartSpec;
  range: TimeRange;
  /** Per-queue charts draw this many series, the rest summed as "others". */
  top: number;
}) {
  const [results, marks] = await Promise.all([
    Promise.all(
      spec.queries.map((q) => queryRange(q.expr.replaceAll('$rw', range.rateWindow), range)),
    ),
    slowest(spec, range),
  ]);
  let series: ChartSeries[] = [];
  let failure: string | null = null;
  for (const [i, r] of results.entries()) {
    if (r.kind !== 'ok') {
      failure = r.message;
      continue;
    }
    const legend = spec.queries[i]!.legend;
    for (const s of r.value)
      if (s.points.length) series.push({ name: legend(s.labels), points: s.points });
  }
  series.sort((a, b) => a.name.localeCompare(b.name));
  if (spec.topN) series = topSeries(series, top);
  return (
    <figure className="panel" data-testid={`chart-${spec.id}`}>
      <figcaption>{spec.title}</figcaption>
      {series.length ? (
        <TimeSeriesChart
          series={series}
          unit={spec.unit}
          range={range}
          reference={spec.reference}
          marks={marks}
          label={`${spec.title}: ${series.map((s) => s.name).join(', ')}`}
        />
      ) : (
        <p className="panel-empty muted">{failure ? `Not available: ${failure}.` : spec.empty}</p>
      )}
      {marks.length ? (
        <ol className="slowest" data-testid={`slowest-${spec.id}`} aria-label="Slowest events">
          {marks.map((m) => (
            <li key={m.label}>
              <Link href={`/events/${encodeURIComponent(m.label)}`}>{m.label}</Link>{' '}
              <span className="muted">
                {formatValue(m.value, spec.unit)} at {formatTime(m.t, 0)}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
    </figure>
  );
}

export function PanelSkeleton({ title }: { title: string }) {
  return (
    <figure className="panel" aria-busy="true">
      <figcaption>{title}</figcaption>
      <div className="skeleton panel-skeleton" />
    </figure>
  );
}
