'use server';
// The search box's form: a Server Action (a POST, from this dashboard's pages only), so that a
// customer's e-mail typed into it is never in a URL, the browser's history or a proxy's log.
import { redirect } from 'next/navigation';
import { destinationOf } from '@/lib/data/lookup';

export async function lookUp(form: FormData): Promise<void> {
  const raw = form.get('q');
  const q = typeof raw === 'string' ? raw.trim().slice(0, 320) : '';
  redirect(q === '' ? '/' : await destinationOf(q));
}
