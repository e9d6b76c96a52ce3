// The overview: find an event, what is wrong now, each work queue's health, the pipeline's charts
// over a chosen range (Prometheus), Celery's when there is Celery, Grafana's panels when
// connected, and the recent events that need a look.
import { Suspense } from 'react';
import { getWords, withArticle } from '@/lib/data/api';
import { config } from '@/lib/config/settings';
import { EMBEDS } from '@/lib/charts/grafana';
import { overviewCharts, parseTop, TOP_CHOICES } from '@/lib/charts/overview';
import { parseRange } from '@/lib/data/range';
import { RecentAnomalies, RecentAnomaliesSkeleton } from '@/ui/events/RecentAnomalies';
import { GrafanaPanels } from '@/ui/grafana/GrafanaPanels';
import { CelerySection } from '@/ui/overview/CelerySection';
import { ChartPanel, PanelSkeleton } from '@/ui/overview/ChartPanel';
import { parseQueueFilter, QueueHealth, QueueHealthSkeleton } from '@/ui/overview/QueueHealth';
import { ProblemsSkeleton, ProblemsStrip } from '@/ui/overview/ProblemsStrip';
import { RangePicker } from '@/ui/overview/RangePicker';
import Link from 'next/link';
import { PanelBoundary } from '@/ui/PanelBoundary';

export const dynamic = 'force-dynamic';

export default async function Overview({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const range = parseRange(params);
  const top = parseTop(params.top);
  const filter = parseQueueFilter(params);
  // What the table's links keep: the range and the charts' choices, not its own filter.
  const keep = new URLSearchParams();
  for (const k of ['range', 'from', 'to', 'refresh', 'top']) {
    const v = params[k];
    if (typeof v === 'string' && v) keep.set(k, v);
  }
  // A new key per range remounts the boundaries, so a new range shows skeletons, not stale charts.
  const key = `${range.start}-${range.end}`;
  return (
    <section>
      <h1>Find an event</h1>
      <p className="muted">
        Paste an event_id or {withArticle((await getWords()).aggregate)} id into the search box
        above.
      </p>

      <h2>Problems now</h2>
      <PanelBoundary what="Problems now">
        <Suspense fallback={<ProblemsSkeleton />}>
          <ProblemsStrip />
        </Suspense>
      </PanelBoundary>

      <h2 id="queues">Queues</h2>
      <PanelBoundary what="Queues">
        <Suspense fallback={<QueueHealthSkeleton />}>
          <QueueHealth filter={filter} params={keep} />
        </Suspense>
      </PanelBoundary>

      <h2>Pipeline</h2>
      <RangePicker range={range} />
      <nav className="top-picker" aria-label="Series per chart">
        Per-queue charts show the top{' '}
        {TOP_CHOICES.map((n) => {
          const p = new URLSearchParams(keep);
          p.set('top', String(n));
          return (
            <Link key={n} href={`/?${p.toString()}`} aria-current={n === top ? 'true' : undefined}>
              {n}{' '}
            </Link>
          );
        })}
        by latest value; the rest are summed as &ldquo;others&rdquo;.
      </nav>
      <div className="panels">
        {overviewCharts(config.confirmationSloSeconds).map((spec) => (
          <PanelBoundary key={`${spec.id}-${key}-${top}`} what={spec.title}>
            <Suspense fallback={<PanelSkeleton title={spec.title} />}>
              <ChartPanel spec={spec} range={range} top={top} />
            </Suspense>
          </PanelBoundary>
        ))}
      </div>

      <PanelBoundary what="Celery">
        <Suspense key={`celery-${key}`} fallback={null}>
          <CelerySection range={range} top={top} />
        </Suspense>
      </PanelBoundary>

      <h2>In Grafana</h2>
      <PanelBoundary what="Grafana's panels">
        <GrafanaPanels
          panels={EMBEDS.overview}
          fromMs={range.start * 1000}
          toMs={range.end * 1000}
        />
      </PanelBoundary>

      <h2>Recent events that need a look</h2>
      <PanelBoundary what="Recent events">
        <Suspense fallback={<RecentAnomaliesSkeleton />}>
          <RecentAnomalies />
        </Suspense>
      </PanelBoundary>
    </section>
  );
}
