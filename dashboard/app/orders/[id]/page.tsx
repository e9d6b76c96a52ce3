// /orders/{id}: every event of an aggregate ("order" or the pipeline's own word; the route keeps
// its name whatever the word) or every task of a Celery workflow, by its root
// task id), each linking to its timeline.
import { notFound } from 'next/navigation';
import { getWords, listEvents } from '@/lib/api';
import { DownBanner } from '@/ui/banner';
import { EventList } from '@/ui/events/EventList';

export const dynamic = 'force-dynamic';

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [result, words] = await Promise.all([
    listEvents({ aggregate_id: id, since: '3650d', limit: '100' }),
    getWords(),
  ]);
  if (result.kind === 'down')
    return <DownBanner what="The acktrail exporter" message={result.message} />;
  if (result.kind !== 'ok' || result.value.events.length === 0) notFound();
  const events = result.value.events;
  return (
    <section>
      <h1>
        {events.some((e) => e.aggregate?.type === 'celery_workflow')
          ? 'Celery workflow'
          : words.aggregate.charAt(0).toUpperCase() + words.aggregate.slice(1)}{' '}
        {id}
      </h1>
      <p className="muted">
        {events.length === 1 ? 'One event' : `${events.length} events`}; open one for its journey.
      </p>
      <EventList events={events} empty="" word={words.aggregate} />
    </section>
  );
}
