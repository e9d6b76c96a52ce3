// /dead-letters/audit: who replayed or discarded what, when, and the outcome; newest first.
import { getAudit } from '@/lib/data/api';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { when } from '@/ui/deadletters/format';
import Link from 'next/link';
import { Table } from '@/ui/page/Table';

export const dynamic = 'force-dynamic';

export default async function Audit({
  searchParams,
}: {
  searchParams: Promise<{ before?: string }>;
}) {
  const { before } = await searchParams;
  const result = await getAudit(
    before && /^\d{1,18}$/.test(before) ? { before, limit: '100' } : { limit: '100' },
  );
  if (result.kind !== 'ok') return <NoData result={result} />;
  const { entries, next } = result.value;
  return (
    <section>
      <h1>Dead-letter audit log</h1>
      <p>
        <Link href="/dead-letters">All groups</Link>
      </p>
      <Table
        testId="audit"
        columns={['When', 'Who', 'Action', 'Message', 'Event', 'Outcome', 'Detail']}
        rows={entries}
        rowKey={(e) => e.id}
      >
        {(e) => (
          <>
            <td>{when(e.at)}</td>
            <td>
              {e.actor}{' '}
              <span
                className="muted"
                title="verified: named by a trusted proxy; asserted: typed at sign-in"
              >
                ({e.actorVerified ? 'verified' : 'asserted'})
              </span>
            </td>
            <td>{e.action}</td>
            <td>
              {e.deadLetterId ? (
                <Link href={`/dead-letters/${e.deadLetterId}`}>#{e.deadLetterId}</Link>
              ) : (
                ''
              )}
            </td>
            <td>
              {e.eventId ? (
                <Link href={`/events/${encodeURIComponent(e.eventId)}`}>
                  <code>{e.eventId}</code>
                </Link>
              ) : (
                ''
              )}
            </td>
            <td>{e.outcome}</td>
            <td>{e.detail ?? ''}</td>
          </>
        )}
      </Table>
      {next ? <Link href={`/dead-letters/audit?before=${next}`}>Older</Link> : null}
    </section>
  );
}
