// "Celery": the Celery pipeline's charts, shown only when the exporter has counted Celery tasks
// (its event consumer is on and workers send events); otherwise nothing, not an empty section.
import { Suspense } from 'react';
import { CELERY_PRESENT, celeryCharts } from '@/lib/charts/celery-charts';
import { query } from '@/lib/data/prometheus';
import type { TimeRange } from '@/lib/data/range';
import { ChartPanel, PanelSkeleton } from './ChartPanel';

export async function CelerySection({ range, top }: { range: TimeRange; top: number }) {
  const present = await query(CELERY_PRESENT);
  if (present.kind !== 'ok' || present.value.length === 0) return null;
  const key = `${range.start}-${range.end}`;
  return (
    <section data-testid="celery">
      <h2>Celery</h2>
      <div className="panels">
        {celeryCharts().map((spec) => (
          <Suspense key={`${spec.id}-${key}`} fallback={<PanelSkeleton title={spec.title} />}>
            <ChartPanel spec={spec} range={range} top={top} />
          </Suspense>
        ))}
      </div>
    </section>
  );
}
