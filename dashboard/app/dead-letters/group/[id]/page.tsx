// /dead-letters/group/{id}: the parked messages of one failure group, each linking to itself and
// its journey, newest first, PAGE at a time (the page says when there are more, and links to
// them); operators replay a selection or the whole group, or discard with a reason.
import { isOperator } from '@/lib/auth/access';
import { listDeadLetters } from '@/lib/data/api';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { STATE_BADGE, flash, when } from '@/ui/deadletters/format';
import Link from 'next/link';
import { discard, replay } from '@/app/dead-letters/actions';
import { Table } from '@/ui/page/Table';

export const dynamic = 'force-dynamic';

/** Messages per page: a group can hold thousands. */
const PAGE = 100;
const ID = /^\d{1,18}$/;

export default async function Group({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ done?: string; n?: string; error?: string; before?: string }>;
}) {
  const { id } = await params;
  const { done, n, error, before } = await searchParams;
  const older: Record<string, string> = before && ID.test(before) ? { before } : {};
  const [result, operator] = await Promise.all([
    listDeadLetters({ group: id, state: 'parked', limit: String(PAGE), ...older }),
    isOperator(),
  ]);
  if (result.kind !== 'ok') return <NoData result={result} />;
  const rows = result.value.deadLetters;
  const next = result.value.next;
  const first = rows[0];
  const message = flash(done, n);
  return (
    <section>
      <h1>
        {first ? (
          <>
            <code>{first.queue}</code>: {first.reasonGroup}
          </>
        ) : (
          'Nothing parked in this group'
        )}
      </h1>
      <p>
        <Link href="/dead-letters">All groups</Link>
      </p>
      {message ? (
        <p className="banner" role="status">
          {message}
        </p>
      ) : null}
      {error ? (
        <p className="banner" role="alert">
          {error.slice(0, 300)}
        </p>
      ) : null}
      <GroupPager id={id} shown={rows.length} next={next} paged={Boolean(older.before)} />
      {rows.length > 0 ? (
        <form action={replay}>
          <input type="hidden" name="group" value={id} />
          <Table
            testId="messages"
            columns={[
              ...(operator ? ['Select'] : []),
              'Message',
              'Event',
              'Parked',
              'State',
              'Last replay error',
            ]}
            rows={rows}
            rowKey={(d) => d.id}
          >
            {(d) => (
              <>
                {operator ? (
                  <td>
                    <input type="checkbox" name="ids" value={d.id} aria-label={`select ${d.id}`} />
                  </td>
                ) : null}
                <td>
                  <Link href={`/dead-letters/${d.id}`}>#{d.id}</Link>
                </td>
                <td>
                  {d.eventId ? (
                    <Link href={`/events/${encodeURIComponent(d.eventId)}`}>
                      <code>{d.eventId}</code>
                    </Link>
                  ) : (
                    <span className="muted">no message id</span>
                  )}
                </td>
                <td>{when(d.parkedAt)}</td>
                <td>
                  <span className={`badge ${STATE_BADGE[d.state] ?? ''}`}>{d.state}</span>
                </td>
                <td>{d.lastError ?? ''}</td>
              </>
            )}
          </Table>
          {operator ? (
            <p>
              <button type="submit" name="scope" value="selected">
                Replay selected
              </button>{' '}
              <button type="submit" name="scope" value="group" data-testid="replay-group">
                Replay the whole group
              </button>
            </p>
          ) : null}
        </form>
      ) : null}
      {operator && rows.length > 0 ? <DiscardGroup id={id} /> : null}
    </section>
  );
}

/** How much of the group the page shows, and the link to the older messages. */
function GroupPager({
  id,
  shown,
  next,
  paged,
}: {
  id: string;
  shown: number;
  next: string | null;
  paged: boolean;
}) {
  if (shown === 0) return null;
  return (
    <p data-testid="group-page">
      {next || paged
        ? `Showing ${shown} parked messages of this group, newest first: it holds more than one page shows.`
        : `All ${shown} parked messages of this group, newest first.`}{' '}
      {next ? (
        <Link href={`/dead-letters/group/${encodeURIComponent(id)}?before=${next}`}>
          Older messages
        </Link>
      ) : null}
    </p>
  );
}

/** The operator's form that discards the whole group, with a reason. */
function DiscardGroup({ id }: { id: string }) {
  return (
    <form action={discard} className="search">
      <input type="hidden" name="group" value={id} />
      <label htmlFor="reason">Discard the whole group, because</label>
      <input id="reason" name="reason" required maxLength={500} />
      <button type="submit">Discard</button>
    </form>
  );
}
