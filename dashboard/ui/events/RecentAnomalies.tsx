// The events of the last 24 h that need a look (dead-lettered, published twice, stuck in the
// outbox), each linking to its timeline. Read once per few seconds for every viewer (recentEvents).
import { getWords, recentEvents } from '@/lib/data/api';
import { ANOMALY_SECTIONS } from '@/lib/charts/embeds';
import { DownBanner } from '@/ui/banner';
import { EventList } from './EventList';

const ANOMALIES = Object.entries(ANOMALY_SECTIONS);

export async function RecentAnomalies() {
  const [words, ...lists] = await Promise.all([
    getWords(),
    ...ANOMALIES.map(([anomaly]) => recentEvents({ anomaly, since: '24h', limit: '10' })),
  ]);
  const down = lists.find((l) => l.kind === 'down');
  const none = lists.every((l) => l.kind === 'ok' && l.value.events.length === 0);
  return (
    <>
      {down?.kind === 'down' ? (
        <DownBanner what="The acktrail exporter" message={down.message} />
      ) : null}
      {ANOMALIES.map(([anomaly, title], i) => {
        const list = lists[i]!;
        return (
          <section key={anomaly} id={anomaly}>
            <h3>{title}, last 24 h</h3>
            {list.kind === 'ok' ? (
              <EventList
                events={list.value.events}
                word={words.aggregate}
                empty={
                  none
                    ? 'None. Events show up here once the pipeline sends spans to the exporter (OTEL_EXPORTER_OTLP_ENDPOINT).'
                    : 'None in the last 24 h.'
                }
              />
            ) : (
              <p className="muted">Not available.</p>
            )}
          </section>
        );
      })}
    </>
  );
}

export function RecentAnomaliesSkeleton() {
  return (
    <div aria-busy="true">
      {ANOMALIES.map(([anomaly, title]) => (
        <section key={anomaly}>
          <h3>{title}, last 24 h</h3>
          <div className="skeleton" />
          <div className="skeleton" />
        </section>
      ))}
    </div>
  );
}
