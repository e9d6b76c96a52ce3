'use server';
// The operator's actions on dead letters, as Server Actions: replay one message, a selection or
// a whole group; discard with a reason; stop a bulk replay. One message is replayed before the
// answer; more go first to /dead-letters/confirm, which shows where each would go and which are
// refused (a dry run), and only its confirmed form starts the bulk replay, whose page shows its
// progress. Every action checks the origin and the operator role (lib/auth/operate.ts); the exporter
// writes the audit log under the operator's name.
import { redirect } from 'next/navigation';
import { operate } from '@/lib/data/api';
import { jobOf, operatorOnly, selection, withParams } from '@/lib/auth/operate';
import type { ReplayJob, ReplayResult } from '@/lib/data/types';

export async function replay(form: FormData): Promise<void> {
  const operator = await operatorOnly();
  const { ids, group, page } = selection(form);
  const wholeGroup = form.get('scope') === 'group' && group !== null;
  if (!wholeGroup && ids.length === 0)
    redirect(withParams(page, { error: 'Select the messages to replay.' }));
  if ((wholeGroup || ids.length > 1) && form.get('confirmed') !== '1') {
    const what = new URLSearchParams(wholeGroup ? { group } : {});
    for (const id of wholeGroup ? [] : ids) what.append('ids', id);
    redirect(`/dead-letters/confirm?${what.toString()}`);
  }
  const r = await operate<ReplayResult | ReplayJob>(
    '/api/dead-letters/replay',
    wholeGroup ? { group } : { ids },
    operator,
  );
  if (r.kind !== 'ok') redirect(withParams(page, { error: r.message }));
  if ('total' in r.value) redirect(`/dead-letters/jobs/${r.value.id}`);
  redirect(withParams(`/dead-letters/${r.value.id}`, { done: 'replayed' }));
}

export async function discard(form: FormData): Promise<void> {
  const operator = await operatorOnly();
  const { ids, group, page } = selection(form);
  const reasonField = form.get('reason');
  const reason = typeof reasonField === 'string' ? reasonField.trim().slice(0, 500) : '';
  if (!reason) redirect(withParams(page, { error: 'Say why it is discarded.' }));
  if (ids.length === 0 && !group)
    redirect(withParams(page, { error: 'Select the messages to discard.' }));
  const r = await operate<{ discarded: number }>(
    '/api/dead-letters/discard',
    ids.length > 0 ? { ids, reason } : { group, reason },
    operator,
  );
  if (r.kind !== 'ok') redirect(withParams(page, { error: r.message }));
  redirect(withParams(page, { done: 'discarded', n: String(r.value.discarded) }));
}

/** Stops a bulk replay after the message in hand. */
export async function stopReplay(form: FormData): Promise<void> {
  const operator = await operatorOnly();
  const job = jobOf(form);
  if (!job) redirect('/dead-letters');
  const r = await operate<unknown>(`/api/dead-letters/jobs/${job}/stop`, {}, operator);
  const page = `/dead-letters/jobs/${job}`;
  redirect(withParams(page, r.kind === 'ok' ? { done: 'stopping' } : { error: r.message }));
}
