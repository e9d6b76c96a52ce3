// One chart of the overview, fetched on the server inside its own Suspense boundary, so a slow or
// failing query delays or empties this panel only.
import type { ChartSpec } from '@/lib/overview';
import { queryRange } from '@/lib/prometheus';
import type { TimeRange } from '@/lib/range';
import { TimeSeriesChart } from '@/ui/charts';
import type { ChartSeries } from './TimeSeriesChart';

export async function ChartPanel({ spec, range }: { spec: ChartSpec; range: TimeRange }) {
  const results = await Promise.all(
    spec.queries.map((q) => queryRange(q.expr.replaceAll('$rw', range.rateWindow), range)),
  );
  const series: ChartSeries[] = [];
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
  return (
    <figure className="panel" data-testid={`chart-${spec.id}`}>
      <figcaption>{spec.title}</figcaption>
      {series.length ? (
        <TimeSeriesChart
          series={series}
          unit={spec.unit}
          range={range}
          reference={spec.reference}
          label={`${spec.title}: ${series.map((s) => s.name).join(', ')}`}
        />
      ) : (
        <p className="panel-empty muted">{failure ? `Not available: ${failure}.` : spec.empty}</p>
      )}
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
