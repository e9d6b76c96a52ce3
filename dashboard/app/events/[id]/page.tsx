// /events/{id}: the journey: verdict, ids (and which one the id asked for matched: an event id,
// a trace id, a message id), attempts, dead-letter reason and parked copies, the waterfall and
// every entry with its raw attributes on demand. An id that matches several journeys (a trace that
// carried several messages) lists them.
import { notFound } from 'next/navigation';
import { getJourney, getWords, traceLink } from '@/lib/api';
import { EMBEDS } from '@/lib/grafana';
import type { TimelineEntry } from '@/lib/types';
import { DownBanner } from '@/ui/banner';
import { CeleryTask } from '@/ui/events/CeleryTask';
import { CopyButton } from '@/ui/events/CopyButton';
import { ParkedMessages } from '@/ui/events/ParkedMessages';
import { GrafanaPanels } from '@/ui/grafana/GrafanaPanels';
import { Waterfall } from '@/ui/charts';
import Link from 'next/link';

export const dynamic = 'force-dynamic';

const BAD = new Set([
  'dead_lettered',
  'discarded',
  'rejected',
  'stuck_in_outbox',
  'unroutable',
  'aggregate_missing',
  'never_acked',
]);

const MATCHED: Record<string, string> = {
  trace_id: 'trace id',
  message_id: 'message id',
  message_key: 'trace context',
};

/** An id that matched several journeys: each of them. */
function Several({ message, body }: { message: string; body: unknown }) {
  const ids = (body as { ids?: unknown }).ids;
  return (
    <section>
      <h1>Several journeys</h1>
      <p>{message}</p>
      <ul data-testid="several">
        {(Array.isArray(ids) ? ids : []).map((id) => (
          <li key={String(id)}>
            <Link href={`/events/${encodeURIComponent(String(id))}`}>
              <code>{String(id)}</code>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The event's first to last entry, with five minutes either side for context. */
function eventWindow(timeline: TimelineEntry[]): { fromMs: number; toMs: number } {
  const times = timeline.map((e) => Date.parse(e.at)).filter((t) => !Number.isNaN(t));
  const first = times.length ? Math.min(...times) : Date.now();
  const last = times.length ? Math.max(...times) : Date.now();
  return { fromMs: first - 300_000, toMs: last + 300_000 };
}

export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  let eventId = id;
  try {
    eventId = decodeURIComponent(id);
  } catch {
    // a malformed escape: look the id up as it came, and let the API say what is wrong with it
  }
  const [result, words] = await Promise.all([getJourney(eventId), getWords()]);
  if (result.kind === 'not_found') notFound();
  if (result.kind === 'bad_request')
    return (
      <section>
        <p className="banner" role="alert">
          {result.message}
        </p>
        <p>Check the id, or search again above.</p>
      </section>
    );
  if (result.kind === 'refused' && result.status === 409)
    return <Several message={result.message} body={result.body} />;
  if (result.kind !== 'ok')
    return <DownBanner what="The acktrail exporter" message={result.message} />;
  const j = result.value;
  return (
    <article>
      <h1>Event journey</h1>
      <p className="verdict" data-testid="verdict">
        {j.verdict}
      </p>
      <p>
        {j.kinds.map((k) => (
          <span
            key={k}
            className={`badge ${BAD.has(k) ? 'bad' : k === 'delivered_once' ? 'ok' : 'warn'}`}
          >
            {k.replace(/_/g, ' ')}
          </span>
        ))}
      </p>
      {j.matched.by !== 'event_id' ? (
        <p className="muted" data-testid="matched">
          Found by its {MATCHED[j.matched.by] ?? j.matched.by} <code>{j.matched.value}</code>
        </p>
      ) : null}
      <div className="ids">
        <span>
          event <code>{j.eventId}</code> <CopyButton value={j.eventId} label="event id" />
        </span>
        {j.aggregate ? (
          <span>
            {j.aggregate.type === 'celery_workflow' ? 'workflow' : words.aggregate}{' '}
            <Link href={`/orders/${encodeURIComponent(j.aggregate.id)}`}>{j.aggregate.id}</Link>{' '}
            <CopyButton value={j.aggregate.id} label={`${words.aggregate} id`} />
          </span>
        ) : null}
        {j.traceIds.map((t) => {
          const link = traceLink(t);
          return (
            <span key={t}>
              trace{' '}
              {link ? (
                <a href={link}>
                  <code>{t}</code>
                </a>
              ) : (
                <code>{t}</code>
              )}{' '}
              <CopyButton value={t} label="trace id" />
            </span>
          );
        })}
      </div>
      {j.notes.length ? (
        <ul className="notes" data-testid="notes" aria-label="What could not be read">
          {j.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      {j.deadLetter ? (
        <p className="banner" data-testid="dead-letter">
          Dead-letter reason: <strong>{j.deadLetter.reason}</strong>
        </p>
      ) : null}
      <ParkedMessages journey={j} />
      {j.celery ? <CeleryTask task={j.celery} /> : null}
      <h2>Time line</h2>
      <Waterfall timeline={j.timeline} />
      {j.attempts.length ? (
        <>
          <h2>Provider attempts</h2>
          <table data-testid="attempts">
            <thead>
              <tr>
                <th>#</th>
                <th>outcome</th>
                <th>status</th>
                <th>at</th>
                <th>duration</th>
              </tr>
            </thead>
            <tbody>
              {j.attempts.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>{a.outcome.replace(/_/g, ' ')}</td>
                  <td>{a.statusCode ?? 'no answer'}</td>
                  <td>{a.at}</td>
                  <td>{a.durationMs} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      <h2>In Grafana, around this event</h2>
      <GrafanaPanels panels={EMBEDS.event} {...eventWindow(j.timeline)} />
      <h2>Entries</h2>
      <table data-testid="entries">
        <thead>
          <tr>
            <th>at</th>
            <th>stage</th>
            <th>service</th>
            <th>duration</th>
            <th>gap</th>
            <th>note</th>
            <th>attributes</th>
          </tr>
        </thead>
        <tbody>
          {j.timeline.map((e, i) => (
            <tr key={`${e.spanId ?? e.stage}-${i}`}>
              <td>{e.at.slice(11, 23)}</td>
              <td>{e.stage}</td>
              <td>{e.service ?? <span className="muted">database</span>}</td>
              <td>{e.durationMs === null ? '' : `${e.durationMs.toFixed(1)} ms`}</td>
              <td>
                {e.gapMs === null ? '' : `+${e.gapMs} ms`}
                {e.skewMs !== null ? (
                  <span className="badge warn">clock skew {e.skewMs} ms</span>
                ) : null}
              </td>
              <td>{e.note}</td>
              <td>
                {Object.keys(e.attributes).length ? (
                  <details>
                    <summary>{Object.keys(e.attributes).length} attributes</summary>
                    <pre>{JSON.stringify(e.attributes, null, 2)}</pre>
                  </details>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
