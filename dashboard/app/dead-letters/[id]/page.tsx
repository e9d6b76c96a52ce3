// /dead-letters/{id}: one parked message in full: where it died (x-death), its reason, where a
// replay would publish it, its headers and body for operators, and its journey beside it.
import { notFound } from 'next/navigation';
import { isOperator } from '@/lib/access';
import { getDeadLetter, getJourney } from '@/lib/api';
import { Waterfall } from '@/ui/charts';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { STATE_BADGE, flash, when } from '@/ui/deadletters/format';
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
      <table>
        <tbody>
          <tr>
            <th scope="row">Queue</th>
            <td>
              <code>{d.queue}</code> (vhost <code>{d.vhost}</code>)
            </td>
          </tr>
          <tr>
            <th scope="row">Event</th>
            <td>{d.eventId ? <code>{d.eventId}</code> : 'no message id'}</td>
          </tr>
          <tr>
            <th scope="row">Reason</th>
            <td data-testid="reason">
              {d.reason} <span className="muted">({d.reasonSource})</span>
            </td>
          </tr>
          <tr>
            <th scope="row">Parked</th>
            <td>
              {when(d.parkedAt)}, kept until {when(d.expiresAt)}
            </td>
          </tr>
          <tr>
            <th scope="row">A replay goes to</th>
            <td>
              {d.replayTo ? (
                <>
                  exchange <code>{d.replayTo.exchange || '(default)'}</code>, routing key{' '}
                  <code>{d.replayTo.routingKey}</code>{' '}
                  <span className="muted">(from {d.replayTo.source})</span>
                </>
              ) : (
                'nowhere known: set deadLetters.queues[].replayTo'
              )}
            </td>
          </tr>
          {d.lastError ? (
            <tr>
              <th scope="row">Last replay error</th>
              <td>{d.lastError}</td>
            </tr>
          ) : null}
        </tbody>
      </table>
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
      {d.deaths.length === 0 ? (
        <p className="muted">None: the application dead-lettered it itself.</p>
      ) : (
        <table data-testid="deaths">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Reason</th>
              <th scope="col">Count</th>
              <th scope="col">Exchange</th>
              <th scope="col">Routing keys</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            {d.deaths.map((x, i) => (
              <tr key={i}>
                <td>{x.queue}</td>
                <td>{x.reason}</td>
                <td>{x.count}</td>
                <td>{x.exchange}</td>
                <td>{x.routingKeys.join(', ')}</td>
                <td>{x.time ? when(new Date(x.time * 1000).toISOString()) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.contentError ? (
        <p className="banner" role="alert" data-testid="content-error">
          The message does not open: {d.contentError}
        </p>
      ) : null}
      {d.content ? (
        <>
          <h2>Headers</h2>
          <pre data-testid="headers">{JSON.stringify(d.content.headers, null, 2)}</pre>
          <h2>Body</h2>
          <pre data-testid="body">
            {'text' in d.content.body ? d.content.body.text : `base64: ${d.content.body.base64}`}
          </pre>
        </>
      ) : (
        <p className="muted" data-testid="no-body">
          Headers and body are shown to operators only.
        </p>
      )}
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
