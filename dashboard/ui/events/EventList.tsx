import type { EventSummary } from '@/lib/data/api';
import Link from 'next/link';
import { at } from '@/ui/time';
import { Table } from '@/ui/page/Table';

export function EventList({
  events,
  empty,
  word = 'aggregate',
}: {
  events: EventSummary[];
  empty: string;
  /** The pipeline's word for its aggregate. */
  word?: string;
}) {
  if (events.length === 0) return <p className="muted">{empty}</p>;
  return (
    <Table
      columns={['event', word, 'last step', 'steps', 'anomalies']}
      rows={events}
      rowKey={(e) => e.eventId}
    >
      {(e) => (
        <>
          <td>
            <Link href={`/events/${encodeURIComponent(e.eventId)}`}>
              <code>{e.eventId}</code>
            </Link>
          </td>
          <td>{e.aggregate?.id ?? '—'}</td>
          <td>{at(e.lastSeen ?? e.firstSeen)}</td>
          <td>{e.steps}</td>
          <td>
            {e.anomalies.map((a) => (
              <span key={a} className="badge warn">
                {a.replace(/_/g, ' ')}
              </span>
            ))}
          </td>
        </>
      )}
    </Table>
  );
}
