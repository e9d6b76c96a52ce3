// POST /dead-letters/replay: an operator replays one message, a selection or a whole group. One
// message is replayed before the answer; more go first to /dead-letters/confirm, which shows
// where each would go and which are refused (a dry run), and only its confirmed form starts the
// bulk replay, whose page shows its progress.
import type { NextRequest } from 'next/server';
import { operate } from '@/lib/api';
import { operatorOf, seeOther, selection, withParams } from '@/lib/operate';
import type { ReplayJob, ReplayResult } from '@/lib/types';

export async function POST(req: NextRequest) {
  const operator = await operatorOf(req);
  if (!('role' in operator)) return operator;
  const form = await req.formData();
  const { ids, group, page } = selection(form);
  const wholeGroup = form.get('scope') === 'group' && group !== null;
  if (!wholeGroup && ids.length === 0)
    return seeOther(withParams(page, { error: 'Select the messages to replay.' }));
  if ((wholeGroup || ids.length > 1) && form.get('confirmed') !== '1') {
    const what = new URLSearchParams(wholeGroup ? { group: group } : {});
    for (const id of wholeGroup ? [] : ids) what.append('ids', id);
    return seeOther(`/dead-letters/confirm?${what.toString()}`);
  }
  const r = await operate<ReplayResult | ReplayJob>(
    '/api/dead-letters/replay',
    wholeGroup ? { group } : { ids },
    operator,
  );
  if (r.kind !== 'ok') return seeOther(withParams(page, { error: r.message }));
  if ('total' in r.value) return seeOther(`/dead-letters/jobs/${r.value.id}`);
  return seeOther(withParams(`/dead-letters/${r.value.id}`, { done: 'replayed' }));
}
