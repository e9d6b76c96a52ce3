// POST /dead-letters/jobs/{id}/stop: an operator stops a bulk replay after the message in hand.
import type { NextRequest } from 'next/server';
import { operate } from '@/lib/api';
import { operatorOf, seeOther, withParams } from '@/lib/operate';

export async function POST(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  const operator = await operatorOf(req);
  if (!('role' in operator)) return operator;
  const { id } = await params;
  if (!/^[0-9a-f-]{36}$/.test(id)) return seeOther('/dead-letters');
  const r = await operate<unknown>(`/api/dead-letters/jobs/${id}/stop`, {}, operator);
  const page = `/dead-letters/jobs/${id}`;
  return seeOther(withParams(page, r.kind === 'ok' ? { done: 'stopping' } : { error: r.message }));
}
