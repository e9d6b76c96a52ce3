// /dead-letters/jobs/{id}: a bulk replay's progress, refreshed while it runs, and why it ended.
import { notFound } from 'next/navigation';
import { isOperator } from '@/lib/auth/access';
import { getJob } from '@/lib/data/api';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { RefreshWhile } from '@/ui/deadletters/RefreshWhile';
import { flash, when } from '@/ui/deadletters/format';
import Link from 'next/link';
import { stopReplay } from '@/app/dead-letters/actions';
import { Table } from '@/ui/page/Table';

export const dynamic = 'force-dynamic';

export default async function JobPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ done?: string }>;
}) {
  const { id } = await params;
  const { done } = await searchParams;
  const [result, operator] = await Promise.all([getJob(id), isOperator()]);
  if (result.kind === 'not_found' && !/parking is off/.test(result.message)) notFound();
  if (result.kind !== 'ok') return <NoData result={result} />;
  const j = result.value;
  const message = flash(done, undefined);
  return (
    <section>
      <RefreshWhile running={j.state === 'running'} />
      <h1>Bulk replay</h1>
      <p>
        <Link href="/dead-letters">All groups</Link>
      </p>
      {message ? (
        <p className="banner" role="status">
          {message}
        </p>
      ) : null}
      <p data-testid="job-state">
        <strong>{j.state}</strong>: {j.done} of {j.total} done, {j.replayed} replayed, {j.failed}{' '}
        not sent, {j.failedAgain} dead-lettered again
      </p>
      <progress max={j.total} value={j.done} aria-label="replayed so far" />
      {j.stopReason ? (
        <p className="banner" role="alert" data-testid="stop-reason">
          Stopped: {j.stopReason}
        </p>
      ) : null}
      <p className="muted">
        Started {when(j.startedAt)} by {j.actor}
        {j.finishedAt ? `, ended ${when(j.finishedAt)}` : ''}.
      </p>
      {operator && j.state === 'running' ? (
        <form action={stopReplay}>
          <input type="hidden" name="job" value={j.id} />
          <button type="submit">Stop</button>
        </form>
      ) : null}
      <h2>Latest results</h2>
      <Table
        columns={['Message', 'Event', 'Outcome', 'Detail']}
        rows={j.results}
        rowKey={(r) => r.id}
      >
        {(r) => (
          <>
            <td>
              <Link href={`/dead-letters/${r.id}`}>#{r.id}</Link>
            </td>
            <td>{r.eventId ? <code>{r.eventId}</code> : ''}</td>
            <td>{r.outcome}</td>
            <td>{r.detail ?? ''}</td>
          </>
        )}
      </Table>
    </section>
  );
}
