// "Queues": one row per work queue with its health status (the exporter's Burrow-style
// evaluation: OK, WARN, STALL, STOP) and the rule that decided it, coloured, before the charts;
// a queue with messages waiting links to the journey of its oldest one.
import Link from 'next/link';
import { getWorkQueues } from '@/lib/api';
import { DownBanner } from '@/ui/banner';
import { formatValue } from './format';

const CLASS = { ok: 'ok', warn: 'warn', stall: 'bad', stop: 'bad', unknown: 'warn' } as const;
const RANK = { stop: 0, stall: 1, unknown: 2, warn: 3, ok: 4 } as const;
/** Rows shown: the queues that need a look come first, so a broker of thousands stays readable. */
const MAX_ROWS = 50;

export async function QueueHealth() {
  const r = await getWorkQueues();
  if (r.kind !== 'ok') return <DownBanner what="The exporter" message={r.message} />;
  const all = r.value.queues;
  const queues = [...all]
    .sort((a, b) => RANK[a.status?.status ?? 'ok'] - RANK[b.status?.status ?? 'ok'])
    .slice(0, MAX_ROWS);
  if (!queues.length)
    return (
      <p className="muted">
        No work queue read yet: does the exporter reach the broker (RABBITMQ_MANAGEMENT_URL)?
      </p>
    );
  return (
    <table className="queues" data-testid="queue-health">
      <thead>
        <tr>
          <th>status</th>
          <th>queue</th>
          <th>why</th>
          <th>ready</th>
          <th>consumers</th>
          <th>oldest waiting</th>
        </tr>
      </thead>
      <tbody>
        {queues.map((q) => {
          const status = q.status?.status ?? 'ok';
          return (
            <tr
              key={`${q.vhost}/${q.queue}`}
              data-queue={q.queue}
              data-status={q.status?.status ?? 'unknown'}
            >
              <td>
                <span className={`badge ${CLASS[status]}`}>
                  {q.status ? status.toUpperCase() : '…'}
                </span>
              </td>
              <td>
                {q.queue} <span className="muted">{q.vhost}</span>
              </td>
              <td>{q.status?.rule ?? 'not evaluated yet'}</td>
              <td>{q.ready}</td>
              <td>{q.consumers}</td>
              <td>
                {q.headEventId ? (
                  <Link href={`/events/${encodeURIComponent(q.headEventId)}`}>{q.headEventId}</Link>
                ) : q.ready > 0 ? (
                  <span className="muted">not in the journeys</span>
                ) : null}
                {q.ready > 0 && q.headAgeSeconds > 0 ? (
                  <span className="muted"> ({formatValue(q.headAgeSeconds, 'seconds')})</span>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
      {all.length > queues.length ? (
        <tfoot>
          <tr>
            <td colSpan={6} className="muted">
              and {all.length - queues.length} more queues (the worst come first)
            </td>
          </tr>
        </tfoot>
      ) : null}
    </table>
  );
}

export function QueueHealthSkeleton() {
  return <div className="skeleton panel-skeleton" aria-busy="true" aria-label="Queues" />;
}
