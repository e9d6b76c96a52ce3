// POST /dead-letters/discard: an operator discards one message or a whole group, with a reason.
import type { NextRequest } from 'next/server';
import { operate } from '@/lib/api';
import { operatorOf, seeOther, selection, withParams } from '@/lib/operate';

export async function POST(req: NextRequest) {
  const operator = await operatorOf(req);
  if (!('role' in operator)) return operator;
  const form = await req.formData();
  const { ids, group, page } = selection(form);
  const reasonField = form.get('reason');
  const reason = typeof reasonField === 'string' ? reasonField.trim().slice(0, 500) : '';
  if (!reason) return seeOther(withParams(page, { error: 'Say why it is discarded.' }));
  if (ids.length === 0 && !group)
    return seeOther(withParams(page, { error: 'Select the messages to discard.' }));
  const r = await operate<{ discarded: number }>(
    '/api/dead-letters/discard',
    ids.length > 0 ? { ids, reason } : { group, reason },
    operator,
  );
  if (r.kind !== 'ok') return seeOther(withParams(page, { error: r.message }));
  return seeOther(withParams(page, { done: 'discarded', n: String(r.value.discarded) }));
}
