// /lookup?q=<id>: a link's way in (the search box posts instead, app/lookup/actions.ts): an
// aggregate's id to its page, a lookup's value to what it found, anything else to the journey.
import { redirect } from 'next/navigation';
import { destinationOf } from '@/lib/data/lookup';

export const dynamic = 'force-dynamic';

export default async function Lookup({
  searchParams,
}: {
  searchParams: Promise<{ q?: string | string[] }>;
}) {
  const raw = (await searchParams).q;
  const q = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  redirect(q === '' ? '/' : await destinationOf(q.slice(0, 320)));
}
