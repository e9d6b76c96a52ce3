// /events: journeys found without their id, newest first: a time range and what support and SREs
// filter by (verdict, anomaly, queue, service, stage, instrumentation, dead-letter reason group,
// Celery task), every filter in the URL (a link is the search), the page's rows with their verdict
// in words, how many match, the next page, and the page as CSV or JSON.
import Link from 'next/link';
import { getWords, searchJourneys } from '@/lib/data/api';
import { DownBanner } from '@/ui/banner';
import { JourneyRows } from '@/ui/events/JourneyRows';
import { FILTERS, JourneyFilters, filtersOf } from '@/ui/events/JourneyFilters';

export const dynamic = 'force-dynamic';

export default async function JourneysPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const filters = filtersOf(await searchParams);
  const [result, words] = await Promise.all([searchJourneys(filters), getWords()]);
  const withCursor = (cursor: string) => new URLSearchParams({ ...filters, cursor }).toString();
  const plain = Object.fromEntries(Object.entries(filters).filter(([k]) => k !== 'cursor'));
  return (
    <section>
      <h1>Journeys</h1>
      <JourneyFilters values={filters} />
      {result.kind === 'bad_request' ? (
        <p className="banner" role="alert" data-testid="bad-filter">
          {result.message}
        </p>
      ) : result.kind !== 'ok' ? (
        <DownBanner what="The acktrail exporter" message={result.message} />
      ) : (
        <>
          <p data-testid="count">
            {countWords(result.value.count, filters.verdict)}
            {result.value.partial
              ? `; this page stopped after examining ${result.value.scanned} journeys (a page is bounded in time): the next page goes on from there, or narrow the filters`
              : ''}
            . Export this page:{' '}
            <a
              href={`/events/export?${new URLSearchParams({ ...plain, format: 'csv' }).toString()}`}
            >
              CSV
            </a>
            ,{' '}
            <a
              href={`/events/export?${new URLSearchParams({ ...plain, format: 'json' }).toString()}`}
            >
              JSON
            </a>
          </p>
          <JourneyRows
            rows={result.value.journeys}
            word={words.aggregate}
            empty="No journey matches these filters in this range."
          />
          {result.value.nextCursor ? (
            <p>
              <Link href={`/events?${withCursor(result.value.nextCursor)}`} data-testid="next">
                Next page
              </Link>
            </p>
          ) : null}
        </>
      )}
      <p className="muted">Filters: {FILTERS.map((f) => f.label).join(', ')}.</p>
    </section>
  );
}

/** How many journeys match, in words: of the verdict asked, where the count is of it. */
function countWords(count: { value: number; exact: boolean } | null, verdict?: string): string {
  if (!count) return 'Not counted for these filters (a page at a time)';
  const n = `${count.exact ? '' : 'more than '}${count.value}`;
  const plural = count.value === 1 ? '' : 's';
  if (verdict === 'dead_lettered') return `${n} dead-lettered journey${plural} in this range`;
  return `${n} journey${plural} match the filters${verdict ? ' before the verdict' : ''}`;
}
