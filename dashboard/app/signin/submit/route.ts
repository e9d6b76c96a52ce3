// POST /signin/submit: checks the secret, sets the HttpOnly, SameSite=Strict session cookie and
// goes back to where the user was headed.
import { NextResponse, type NextRequest } from 'next/server';
import { config } from '@/lib/config';
import {
  SESSION_COOKIE,
  SESSION_SECONDS,
  newSession,
  safeNext,
  secretMatches,
} from '@/lib/session';

/**
 * A relative Location: behind `next start -H` or a proxy, the request URL the server sees may
 * name another host than the one the browser used.
 */
const seeOther = (path: string) =>
  new NextResponse(null, { status: 303, headers: { location: path } });

export async function POST(req: NextRequest) {
  const form = await req.formData();
  const given = form.get('secret');
  const next = safeNext(typeof form.get('next') === 'string' ? (form.get('next') as string) : null);
  const secret = config.dashboardSecret;
  if (!secret) return seeOther(next);
  if (typeof given !== 'string' || !secretMatches(secret, given))
    return seeOther(`/signin?${new URLSearchParams({ error: '1', next }).toString()}`);
  const res = seeOther(next);
  res.cookies.set(SESSION_COOKIE, newSession(secret), {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.nextUrl.protocol === 'https:',
    path: '/',
    maxAge: SESSION_SECONDS,
  });
  return res;
}
