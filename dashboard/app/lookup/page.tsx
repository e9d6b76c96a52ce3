// /lookup?q=...: an aggregate's id goes to its page (all its events), anything else to the
// journey's page, where the exporter finds it as an event id, a trace id or a message id and says
// which matched: the aggregate is tried first, then the journey.
import { redirect } from 'next/navigation';
import { listEvents } from '@/lib/api';

export const dynamic = 'force-dynamic';

export default async function Lookup({
  searchParams,
}: {
  searchParams: Promise<{ q?: string | string[] }>;
}) {
  const raw = (await searchParams).q;
  const q = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  if (q === '') redirect('/');
  const asAggregate = await listEvents({ aggregate_id: q, since: '3650d', limit: '1' });
  const isAggregate = asAggregate.kind === 'ok' && asAggregate.value.events.length > 0;
  redirect(isAggregate ? `/orders/${encodeURIComponent(q)}` : `/events/${encodeURIComponent(q)}`);
}
