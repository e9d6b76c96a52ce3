// /lookup?q=...: an order number goes to its order page, anything else to the event's timeline.
import { redirect } from 'next/navigation';

export default async function Lookup({
  searchParams,
}: {
  searchParams: Promise<{ q?: string | string[] }>;
}) {
  const raw = (await searchParams).q;
  const q = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  if (q === '') redirect('/');
  redirect(/^\d+$/.test(q) ? `/orders/${q}` : `/events/${encodeURIComponent(q)}`);
}
