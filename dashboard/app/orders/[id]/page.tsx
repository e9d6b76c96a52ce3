// /orders/{id}: every event of an aggregate ("order" or the pipeline's own word; the route keeps
// its name whatever the word) or every task of a Celery workflow (by its root task id), each with
// its verdict in words as its own page says it, linking to its timeline. Events still in the
// outbox (no span yet) are listed with what their rows say.
import { notFound } from 'next/navigation';
import { getWords, searchJourneys } from '@/lib/data/api';
import { DownBanner } from '@/ui/banner';
import { JourneyRows } from '@/ui/events/JourneyRows';

export const dynamic = 'force-dynamic';

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [result, words] = await Promise.all([
    searchJourneys({ aggregate_id: id, limit: '200' }),
    getWords(),
  ]);
  if (result.kind === 'bad_request') notFound();
  if (result.kind !== 'ok')
    return <DownBanner what="The acktrail exporter" message={result.message} />;
  const rows = result.value.journeys;
  if (rows.length === 0) notFound();
  const word = rows.some((r) => r.aggregate?.type === 'celery_workflow')
    ? 'Celery workflow'
    : words.aggregate.charAt(0).toUpperCase() + words.aggregate.slice(1);
  return (
    <section>
      <h1>
        {word} {id}
      </h1>
      <p className="muted">
        {rows.length === 1 ? 'One event' : `${rows.length} events`}
        {result.value.nextCursor ? ' (the newest 200)' : ''}; open one for its journey.
      </p>
      <JourneyRows rows={rows} word={words.aggregate} empty="" />
    </section>
  );
}
