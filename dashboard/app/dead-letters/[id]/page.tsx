// /dead-letters/{id}: one parked message in full: where it died (x-death), its reason, where a
// replay would publish it, its headers and body for operators, and its journey beside it.
import { notFound } from 'next/navigation';
import { isOperator } from '@/lib/auth/access';
import { getDeadLetter, getJourney } from '@/lib/data/api';
import { Waterfall } from '@/ui/charts';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { Content, Deaths, Facts } from '@/ui/deadletters/DeadLetterParts';
import { STATE_BADGE, flash } from '@/ui/deadletters/format';
import Link from 'next/link';
import { discard, replay } from '@/app/dead-letters/actions';

export const dynamic = 'force-dynamic';

export default async function DeadLetterPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ done?: string; n?: string; error?: string }>;
}) {
  const { id } = await params;
  const { done, n, error } = await searchParams;
  const [result, operator] = await Promise.all([getDeadLetter(id), isOperator()]);
  if (result.kind === 'not_found' && !/parking is off/.test(result.message)) notFound();
  if (result.kind !== 'ok') return <NoData result={result} />;
  const d = result.value;
  const journey = d.eventId ? await getJourney(d.eventId) : null;
  const message = flash(done, n);
  return (
    <article className="dead-letter">
      <h1>
        Dead letter #{d.id}{' '}
        <span className={`badge ${STATE_BADGE[d.state] ?? ''}`} data-testid="state">
          {d.state}
        </span>
      </h1>
      <p>
        <Link href={`/dead-letters/group/${d.groupId}`}>Its group</Link> ·{' '}
        <Link href="/dead-letters">All groups</Link>
      </p>
      {message ? (
        <p className="banner" role="status" data-testid="flash">
          {message}
        </p>
      ) : null}
      {error ? (
        <p className="banner" role="alert" data-testid="error">
          {error.slice(0, 300)}
        </p>
      ) : null}
      <Facts d={d} />
      {operator && d.state === 'parked' ? (
        <div className="actions">
          <form action={replay}>
            <input type="hidden" name="ids" value={d.id} />
            <input type="hidden" name="back" value={d.id} />
            <button type="submit" data-testid="replay">
              Replay
            </button>
          </form>
          <form action={discard} className="search">
            <input type="hidden" name="ids" value={d.id} />
            <input type="hidden" name="back" value={d.id} />
            <label htmlFor="reason">Discard, because</label>
            <input id="reason" name="reason" required maxLength={500} />
            <button type="submit">Discard</button>
          </form>
        </div>
      ) : null}
      <h2>x-death</h2>
      <Deaths deaths={d.deaths} />
      <Content d={d} />
      <h2>Journey</h2>
      {journey?.kind === 'ok' ? (
        <>
          <p className="verdict" data-testid="verdict">
            {journey.value.verdict}{' '}
            <Link href={`/events/${encodeURIComponent(journey.value.eventId)}`}>open</Link>
          </p>
          <Waterfall timeline={journey.value.timeline} />
        </>
      ) : (
        <p className="muted">No journey stored for this event.</p>
      )}
    </article>
  );
}
