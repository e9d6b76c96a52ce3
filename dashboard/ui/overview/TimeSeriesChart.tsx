'use client';
// One overview chart: a line per series on a shared time axis, with an optional threshold line,
// and its legend below as a list that scrolls inside the panel (never over the page, however many
// series). Recharts draws in the browser only; the server sends the points, already fetched.
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceDot,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Unit } from '@/lib/charts/overview';
import { formatTime, formatValue } from './format';

export interface ChartSeries {
  name: string;
  points: [number, number][];
}

/** A point to mark on the chart: one of the slowest events (from an exemplar). */
export interface ChartMark {
  t: number;
  value: number;
  label: string;
}

/** Distinct in light and dark themes, and for the common colour-vision deficiencies (Okabe-Ito). */
const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#8b8b00'];

export function TimeSeriesChart({
  series,
  unit,
  range,
  reference,
  label,
  marks = [],
}: {
  series: ChartSeries[];
  unit: Unit;
  range: { start: number; end: number };
  reference?: { value: number; label: string };
  label: string;
  marks?: ChartMark[];
}) {
  const rows = new Map<number, Record<string, number>>();
  series.forEach((s, i) => {
    for (const [t, v] of s.points) {
      const row = rows.get(t) ?? { t };
      row[`s${i}`] = v;
      rows.set(t, row);
    }
  });
  const data = [...rows.values()].sort((a, b) => a.t! - b.t!);
  const span = range.end - range.start;
  return (
    <>
      <div className="overview-chart" role="img" aria-label={label}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
            <CartesianGrid stroke="var(--line)" strokeDasharray="3 3" />
            <XAxis
              dataKey="t"
              type="number"
              domain={[range.start, range.end]}
              tickFormatter={(t: number) => formatTime(t, span)}
              stroke="var(--muted)"
              fontSize={12}
            />
            <YAxis
              tickFormatter={(v: number) => formatValue(v, unit)}
              stroke="var(--muted)"
              fontSize={12}
              width={64}
              domain={[0, 'auto']}
            />
            <Tooltip
              labelFormatter={(t) => formatTime(Number(t), 0)}
              formatter={(v) => formatValue(Number(v), unit)}
              contentStyle={{ background: 'var(--bg)', borderColor: 'var(--line)' }}
            />
            {reference ? (
              <ReferenceLine
                y={reference.value}
                stroke="var(--bad)"
                strokeDasharray="6 3"
                ifOverflow="extendDomain"
                label={{
                  value: `${reference.label} ${formatValue(reference.value, unit)}`,
                  fill: 'var(--bad)',
                  fontSize: 12,
                  position: 'insideTopRight',
                }}
              />
            ) : null}
            {marks.map((m) => (
              <ReferenceDot
                key={m.label}
                x={m.t}
                y={m.value}
                r={4}
                fill="var(--bad)"
                stroke="var(--bg)"
                ifOverflow="extendDomain"
              />
            ))}
            {series.map((s, i) => (
              <Line
                key={s.name}
                dataKey={`s${i}`}
                name={s.name}
                stroke={PALETTE[i % PALETTE.length]}
                // Sparse series (a quantile of rare events) would be invisible as lines alone.
                dot={s.points.length <= 20 ? { r: 2 } : false}
                strokeWidth={2}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
      {/* It scrolls past a few series: focusable, so a keyboard can scroll it too. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region */}
      <ul className="chart-legend" aria-label="Legend" tabIndex={0}>
        {series.map((s, i) => (
          <li key={s.name}>
            <span className="swatch" style={{ background: PALETTE[i % PALETTE.length] }} />
            {s.name}
          </li>
        ))}
      </ul>
    </>
  );
}
