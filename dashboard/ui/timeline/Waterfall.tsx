'use client';
// The journey's entries on one time axis: each bar starts at the entry's offset from the first
// and lasts its duration (rows from the pipeline's database are instants). Redeliveries, retries
// and duplicates get their own colours.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Rectangle,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
} from 'recharts';
import type { TimelineEntry } from '@/lib/types';

const COLOURS = {
  normal: '#0969da',
  redelivered: '#bf8700',
  retry: '#8250df',
  duplicate: '#cf222e',
  pipeline: '#6e7781',
};

/** A first publish of the message (@acktrail/conventions' PUBLISH_STAGES); a retry is not one. */
const isPublish = (stage: string) => stage === 'outbox.publish' || stage === 'publish';

function colourOf(e: TimelineEntry, publishIndex: number): string {
  if (e.source === 'pipeline') return COLOURS.pipeline;
  if (e.attributes['acktrail.delivery.redelivered'] === true) return COLOURS.redelivered;
  if (Number(e.attributes['acktrail.delivery.attempt'] ?? 1) > 1 || e.stage === 'retry.publish')
    return COLOURS.retry;
  if (isPublish(e.stage) && publishIndex > 0) return COLOURS.duplicate;
  return COLOURS.normal;
}

export function Waterfall({ timeline }: { timeline: TimelineEntry[] }) {
  const t0 = timeline.length ? Date.parse(timeline[0]!.at) : 0;
  let publishes = 0;
  const data = timeline.map((e, i) => {
    const offset = Date.parse(e.at) - t0;
    const colour = colourOf(e, isPublish(e.stage) ? publishes++ : 0);
    return {
      key: `${i + 1}. ${e.stage}`,
      offset,
      duration: Math.max(e.durationMs ?? 0, 0.5),
      colour,
      note: e.note ?? '',
    };
  });
  return (
    <figure
      className="chart"
      aria-label="Journey waterfall: each stage on a time axis, in ms from the first entry"
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ left: 40, right: 20 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" unit=" ms" />
          <YAxis type="category" dataKey="key" width={190} tick={{ fontSize: 12 }} />
          <Tooltip />
          <Bar dataKey="offset" stackId="t" fill="transparent" isAnimationActive={false} />
          <Bar
            dataKey="duration"
            stackId="t"
            isAnimationActive={false}
            name="duration (ms)"
            shape={(props: BarShapeProps) => (
              <Rectangle {...props} fill={(props.payload as { colour: string }).colour} />
            )}
          />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
