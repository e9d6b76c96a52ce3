// POST /signin/submit: checks the secret, sets the HttpOnly, SameSite=Strict session cookie (Secure
// behind a trusted TLS proxy) and goes back to where the user was headed. Refused from another
// site's page; failed attempts are rate-limited per client and in all (lib/ratelimit.ts).
import { NextResponse, type NextRequest } from 'next/server';
import { authSettings } from '@/lib/config';
import { recordFailure, retryAfterSeconds } from '@/lib/ratelimit';
import { clientAddress, crossSite, overHttps } from '@/lib/request';
import {
  SESSION_COOKIE,
  SESSION_SECONDS,
  newSession,
  safeNext,
  secretMatches,
} from '@/lib/session';

/** Longer than any secret: the form field is not read past it. */
const MAX_SECRET = 1024;

/**
 * A relative Location: behind a listen address of its own (HOSTNAME) or a proxy, the request URL the server sees may
 * name another host than the one the browser used.
 */
const seeOther = (path: string) =>
  new NextResponse(null, { status: 303, headers: { location: path } });

const back = (error: string, next: string) =>
  seeOther(`/signin?${new URLSearchParams({ error, next }).toString()}`);

export async function POST(req: NextRequest) {
  if (crossSite(req))
    return new NextResponse('sign-in from another site is refused', { status: 403 });
  const form = await req.formData();
  const given = form.get('secret');
  const nextField = form.get('next');
  const next = safeNext(typeof nextField === 'string' ? nextField : null);
  const auth = authSettings();
  if (auth.mode === 'none') return seeOther(next);
  const client = clientAddress(req);
  const wait = retryAfterSeconds(client);
  if (wait > 0) {
    const res = back('slow', next);
    res.headers.set('retry-after', String(wait));
    return res;
  }
  if (
    typeof given !== 'string' ||
    given.length > MAX_SECRET ||
    !secretMatches(auth.secret, given)
  ) {
    recordFailure(client);
    return back('1', next);
  }
  const res = seeOther(next);
  res.cookies.set(SESSION_COOKIE, newSession(auth.secret), {
    httpOnly: true,
    sameSite: 'strict',
    secure: overHttps(req),
    path: '/',
    maxAge: SESSION_SECONDS,
  });
  return res;
}
