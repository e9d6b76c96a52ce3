// /events/export: the journeys list's page as the exporter writes it, CSV or JSON, for a download
// (the dashboard reads with its token on the server; the browser never holds it).
import { exportJourneys } from '@/lib/data/api';
import { filtersOf } from '@/ui/events/JourneyFilters';

export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const filters = filtersOf(Object.fromEntries(url.searchParams));
  const format = url.searchParams.get('format') === 'csv' ? 'csv' : 'json';
  const answer = await exportJourneys({ ...filters, format });
  if (answer.kind !== 'ok')
    return new Response(answer.message, {
      status: answer.status >= 400 && answer.status < 600 ? answer.status : 502,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  return new Response(answer.body, {
    headers: {
      'content-type': answer.type,
      'content-disposition': `attachment; filename="journeys.${format}"`,
    },
  });
}
