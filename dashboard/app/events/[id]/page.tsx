// /events/{id}: the journey: verdict, ids (and which one the id asked for matched: an event id,
// a trace id, a message id), attempts, dead-letter reason and parked copies, the waterfall and
// every entry with its raw attributes on demand. An id that matches several journeys (a trace that
// carried several messages) lists them.
import { notFound } from 'next/navigation';
import { getJourney, getWords } from '@/lib/data/api';
import { EMBEDS } from '@/lib/charts/grafana';
import type { Journey, TimelineEntry } from '@/lib/data/types';
import { DownBanner } from '@/ui/banner';
import { CeleryTask } from '@/ui/events/CeleryTask';
import { Attempts, Entries, Ids, Inferred, Kinds } from '@/ui/events/JourneyParts';
import { ParkedMessages } from '@/ui/events/ParkedMessages';
import { GrafanaPanels } from '@/ui/grafana/GrafanaPanels';
import { Waterfall } from '@/ui/charts';
import Link from 'next/link';

export const dynamic = 'force-dynamic';

const MATCHED: Record<string, string> = {
  trace_id: 'trace id',
  message_id: 'message id',
  message_key: 'trace context',
};

const KNOWN_FROM: Record<Journey['knownFrom'][number], string> = {
  outbox: 'the outbox row',
  dead_letter_parking: 'dead-letter parking',
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
      <Kinds kinds={j.kinds} />
      {j.traced ? null : (
        <p className="banner" data-testid="not-traced">
          Not traced: no span of this message reached acktrail (its trace was sampled out, or its
          service is not instrumented). What is shown comes from{' '}
          {j.knownFrom.map((k) => KNOWN_FROM[k]).join(' and ')}.
        </p>
      )}
      {j.matched.by !== 'event_id' ? (
        <p className="muted" data-testid="matched">
          Found by its {MATCHED[j.matched.by] ?? j.matched.by} <code>{j.matched.value}</code>
        </p>
      ) : null}
      <Ids journey={j} aggregateWord={words.aggregate} />
      {j.notes.length ? (
        <ul className="notes" data-testid="notes" aria-label="What could not be read">
          {j.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      {j.deadLetter ? (
        <p className="banner" data-testid="dead-letter">
          Dead-letter reason: <strong>{j.deadLetter.words}</strong>
        </p>
      ) : null}
      <ParkedMessages journey={j} />
      <Inferred journey={j} />
      {j.celery ? <CeleryTask task={j.celery} /> : null}
      <h2>Time line</h2>
      <Waterfall timeline={j.timeline} />
      <Attempts attempts={j.attempts} />
      <h2>In Grafana, around this event</h2>
      <GrafanaPanels panels={EMBEDS.event} {...eventWindow(j.timeline)} />
      <h2>Entries</h2>
      <Entries timeline={j.timeline} />
    </article>
  );
}
