// /dead-letters: parked dead letters grouped by queue and masked reason, largest group first,
// with the latest bulk replays; each group opens its messages.
import { getDeadLetterGroups, listJobs } from '@/lib/data/api';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { when } from '@/ui/deadletters/format';
import Link from 'next/link';
import { Table } from '@/ui/page/Table';

export const dynamic = 'force-dynamic';

export default async function DeadLetters() {
  const [groups, jobs] = await Promise.all([getDeadLetterGroups(), listJobs()]);
  if (groups.kind !== 'ok') return <NoData result={groups} />;
  return (
    <section>
      <h1>Dead letters</h1>
      <p className="muted">
        Parked dead letters by queue and reason (ids, numbers and addresses masked).{' '}
        <Link href="/dead-letters/audit">Audit log</Link>
      </p>
      {groups.value.groups.length === 0 ? (
        <p data-testid="no-dead-letters">Nothing is parked.</p>
      ) : (
        <Table
          testId="groups"
          columns={['Queue', 'Reason', 'Messages', 'First seen', 'Last seen', 'Examples']}
          rows={groups.value.groups}
          rowKey={(g) => g.id}
        >
          {(g) => (
            <>
              <td>
                <code>{g.queue}</code>
              </td>
              <td>
                <Link href={`/dead-letters/group/${g.id}`}>{g.reasonGroup}</Link>
              </td>
              <td>{g.count}</td>
              <td>{when(g.firstSeen)}</td>
              <td>{when(g.lastSeen)}</td>
              <td>
                {g.examples.map((e) => (
                  <Link key={e} href={`/events/${encodeURIComponent(e)}`} className="badge">
                    {e.slice(0, 8)}
                  </Link>
                ))}
              </td>
            </>
          )}
        </Table>
      )}
      {jobs.kind === 'ok' && jobs.value.jobs.length > 0 ? (
        <>
          <h2>Bulk replays on this exporter</h2>
          <ul>
            {jobs.value.jobs.map((j) => (
              <li key={j.id}>
                <Link href={`/dead-letters/jobs/${j.id}`}>
                  {when(j.startedAt)}: {j.state}, {j.done} of {j.total}
                </Link>{' '}
                by {j.actor}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
