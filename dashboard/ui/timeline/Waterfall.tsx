'use client';
// The journey's entries on one time axis: each span a bar from its offset from the first entry,
// as long as it lasted; each row of the pipeline's database a point (a row is an instant: the
// time between two rows is not work). Redeliveries, retries and duplicates get their own colours,
// and the legend under the chart says which is which. Long idle gaps are compressed and marked with their real
// length (lib/charts/waterfall.ts), so every step stays visible; ticks show the real offsets.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Rectangle,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
} from 'recharts';
import { ATTR, isPublish } from '@acktrail/conventions';
import type { TimelineEntry } from '@/lib/data/types';
import { compressedAxis } from '@/lib/charts/waterfall';

/** "160 s", "4 min", "2 h": a gap's real length. */
function idle(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

const COLOURS = {
  normal: '#0969da',
  redelivered: '#bf8700',
  retry: '#8250df',
  duplicate: '#cf222e',
  pipeline: '#6e7781',
};

function colourOf(e: TimelineEntry, publishIndex: number): string {
  if (e.source === 'pipeline') return COLOURS.pipeline;
  if (e.attributes[ATTR.redelivered] === true) return COLOURS.redelivered;
  if (Number(e.attributes[ATTR.attempt] ?? 1) > 1 || e.stage === 'retry.publish')
    return COLOURS.retry;
  if (isPublish(e.stage) && publishIndex > 0) return COLOURS.duplicate;
  return COLOURS.normal;
}

export function Waterfall({ timeline }: { timeline: TimelineEntry[] }) {
  const t0 = timeline.length ? Date.parse(timeline[0]!.at) : 0;
  const spans = timeline.map((e) => {
    const start = Date.parse(e.at) - t0;
    return { start, end: start + Math.max(e.durationMs ?? 0, 0) };
  });
  const axis = compressedAxis(spans);
  let publishes = 0;
  const data = timeline.map((e, i) => {
    const { start, end } = spans[i]!;
    const colour = colourOf(e, isPublish(e.stage) ? publishes++ : 0);
    return {
      key: `${i + 1}. ${e.stage}`,
      offset: axis.toX(start),
      duration: Math.max(axis.toX(end) - axis.toX(start), 0.5),
      at: start,
      colour,
      row: e.source === 'pipeline',
      note: e.note ?? '',
    };
  });
  const compressed = axis.gaps.length > 0;
  return (
    <>
      <figure
        className="chart"
        aria-label={`Journey waterfall: each stage on a time axis, in ms from the first entry${compressed ? `; idle gaps compressed: ${axis.gaps.map((g) => idle(g.ms)).join(', ')}` : ''}`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} layout="vertical" margin={{ left: 40, right: 20 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} />
            <XAxis
              type="number"
              unit=" ms"
              tickFormatter={(x: number) => String(Math.round(axis.toMs(x)))}
            />
            <YAxis type="category" dataKey="key" width={190} tick={{ fontSize: 12 }} />
            <Tooltip
              formatter={(value, name, item) =>
                name === 'offset'
                  ? [`${Math.round((item.payload as { at: number }).at)} ms`, 'starts at']
                  : [value, name]
              }
            />
            {axis.gaps.map((g) => (
              <ReferenceArea
                key={g.x1}
                x1={g.x1}
                x2={g.x2}
                fill="#d0d7de"
                fillOpacity={0.6}
                label={{ value: `${idle(g.ms)} idle`, position: 'insideTop', fontSize: 11 }}
              />
            ))}
            <Bar dataKey="offset" stackId="t" fill="transparent" isAnimationActive={false} />
            <Bar
              dataKey="duration"
              stackId="t"
              isAnimationActive={false}
              name="duration (ms)"
              shape={(props: BarShapeProps) => {
                const { colour, row } = props.payload as { colour: string; row: boolean };
                if (!row) return <Rectangle {...props} fill={colour} />;
                const x = props.x;
                const y = props.y + props.height / 2;
                return <circle cx={x} cy={y} r={5} fill={colour} data-row="point" />;
              }}
            />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <Legend />
    </>
  );
}

/** What the waterfall's marks mean: a span's bar and its colours, a row's point. */
function Legend() {
  const keys: [string, string][] = [
    [COLOURS.normal, 'span (a bar as long as it lasted)'],
    [COLOURS.redelivered, 'redelivered'],
    [COLOURS.retry, 'retry'],
    [COLOURS.duplicate, 'publish again (duplicate)'],
  ];
  return (
    <p className="chart-legend" data-testid="waterfall-legend">
      {keys.map(([colour, what]) => (
        <span key={what}>
          <span className="swatch" style={{ background: colour }} aria-hidden="true" /> {what}
        </span>
      ))}
      <span>
        <span className="swatch dot" style={{ background: COLOURS.pipeline }} aria-hidden="true" />{' '}
        row in the pipeline&apos;s database (an instant: <code>outbox.created</code>,{' '}
        <code>outbox.published</code>, <code>provider.attempt</code>, …)
      </span>
    </p>
  );
}
