// The journeys of a list (the /events page, an aggregate's page), one row each: when, its verdict
// class and the verdict in words as its page says it, its kinds, its id (linking to its page) and
// its aggregate.
import Link from 'next/link';
import type { JourneyRow } from '@/lib/data/api';
import { at } from '@/ui/time';
import { Table } from '@/ui/page/Table';

/** A verdict class's badge: good, bad or to look at. */
const TONE: Record<string, string> = {
  processed: 'ok',
  failed: 'bad',
  dead_lettered: 'bad',
  stuck: 'bad',
  in_flight: 'warn',
  not_traced: 'warn',
  settle_not_recorded: 'warn',
};

export function JourneyRows({
  rows,
  word,
  empty,
}: {
  rows: JourneyRow[];
  /** The pipeline's word for its aggregate. */
  word: string;
  empty: string;
}) {
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <Table
      testId="journeys"
      columns={['when', 'verdict', 'event', word]}
      rows={rows}
      rowKey={(r) => r.eventId}
      rowProps={(r) => ({ 'data-class': r.class })}
    >
      {(r) => (
        <>
          <td>{at(r.at)}</td>
          <td>
            <span className={`badge ${TONE[r.class] ?? 'warn'}`}>{r.class.replace(/_/g, ' ')}</span>{' '}
            {r.kinds.includes('settle_inferred') ? (
              <span className="badge warn">settle inferred</span>
            ) : null}{' '}
            <span className="verdict-words">{r.verdict}</span>
            {r.kinds.length ? (
              <span className="muted kinds" data-testid="kinds">
                {' '}
                ({r.kinds.map((k) => k.replace(/_/g, ' ')).join(', ')})
              </span>
            ) : null}
          </td>
          <td>
            <Link href={`/events/${encodeURIComponent(r.eventId)}`}>
              <code>{r.eventId}</code>
            </Link>
          </td>
          <td>
            {r.aggregate ? (
              <Link href={`/orders/${encodeURIComponent(r.aggregate.id)}`}>{r.aggregate.id}</Link>
            ) : (
              '—'
            )}
          </td>
        </>
      )}
    </Table>
  );
}
