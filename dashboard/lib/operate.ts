// The dashboard's state changes (dead-letter replay and discard): POST form submissions from its
// own pages, by a signed-in operator, passed to the exporter with the operator token and the
// operator's name for the audit log. Anything else is refused.
import 'server-only';
import { NextResponse, type NextRequest } from 'next/server';
import { currentSession } from './access';
import { crossSite } from './request';
import type { Session } from './session';

const ID = /^\d{1,18}$/;
const GROUP = /^[A-Za-z0-9_-]{1,1200}$/;

/** A relative Location: the request URL the server sees may name another host than the browser's. */
export const seeOther = (path: string) =>
  new NextResponse(null, { status: 303, headers: { location: path } });

/** The operator behind a form post, or the answer that refuses it. */
export async function operatorOf(req: NextRequest): Promise<Session | NextResponse> {
  if (crossSite(req)) return new NextResponse('refused: a form of another site', { status: 403 });
  const session = await currentSession();
  if (session?.role !== 'operator')
    return new NextResponse('only an operator may do this: sign in with the operator secret', {
      status: 403,
    });
  return session;
}

/** What a dead-letter form names: message ids, a group, and the page to go back to. */
export function selection(form: FormData) {
  const ids = form.getAll('ids').filter((v): v is string => typeof v === 'string' && ID.test(v));
  const groupField = form.get('group');
  const group = typeof groupField === 'string' && GROUP.test(groupField) ? groupField : null;
  const backField = form.get('back');
  const back = typeof backField === 'string' && ID.test(backField) ? backField : null;
  const page = back
    ? `/dead-letters/${back}`
    : group
      ? `/dead-letters/group/${group}`
      : '/dead-letters';
  return { ids, group, page };
}

export const withParams = (page: string, params: Record<string, string>) =>
  `${page}?${new URLSearchParams(params).toString()}`;
