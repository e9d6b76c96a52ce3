'use client';
// The recharts components, loaded after the page is interactive: recharts is about half of the
// JavaScript a page would otherwise load first (docs/benchmarks.md), and it draws nothing on the
// server anyway (its containers measure the browser's layout).
import dynamic from 'next/dynamic';

const placeholder = (className: string) =>
  function ChartPlaceholder() {
    return <div className={`skeleton ${className}`} aria-busy="true" />;
  };

export const TimeSeriesChart = dynamic(
  () => import('./overview/TimeSeriesChart').then((m) => m.TimeSeriesChart),
  { ssr: false, loading: placeholder('panel-skeleton') },
);

export const Waterfall = dynamic(() => import('./timeline/Waterfall').then((m) => m.Waterfall), {
  ssr: false,
  loading: placeholder('chart'),
});
