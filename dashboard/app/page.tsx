// Home: the search box and the recent events that need a look.
import { listEvents } from '@/lib/api';
import { DownBanner } from '@/ui/banner';
import { EventList } from '@/ui/events/EventList';
import { SearchBox } from '@/ui/search/SearchBox';

export const dynamic = 'force-dynamic';

const ANOMALIES = [
  ['dead_lettered', 'Dead-lettered'],
  ['published_twice', 'Published twice'],
  ['stuck_in_outbox', 'Stuck in the outbox'],
] as const;

export default async function Home() {
  const lists = await Promise.all(
    ANOMALIES.map(([anomaly]) => listEvents({ anomaly, since: '24h', limit: '10' })),
  );
  const down = lists.find((l) => l.kind === 'down');
  const downMessage = down?.kind === 'down' ? down.message : null;
  return (
    <section>
      <h1>Find an event</h1>
      <p className="muted">Paste an event_id or an order number.</p>
      <SearchBox autoFocus />
      {downMessage ? <DownBanner what="The acktrail exporter" message={downMessage} /> : null}
      {ANOMALIES.map(([anomaly, title], i) => {
        const list = lists[i]!;
        return (
          <section key={anomaly}>
            <h2>{title}, last 24 h</h2>
            {list.kind === 'ok' ? (
              <EventList
                events={list.value.events}
                empty="None. Events show up here once the pipeline sends spans to the exporter (OTEL_EXPORTER_OTLP_ENDPOINT)."
              />
            ) : (
              <p className="muted">Not available.</p>
            )}
          </section>
        );
      })}
    </section>
  );
}
