// POST /signin/submit: checks the secret (the reader's, or the operator's, who may also give a
// name for the audit log), sets the HttpOnly, SameSite=Strict session cookie (Secure
// behind a trusted TLS proxy), signed with its role's key, and goes back to where the user was
// headed. Refused from another site's page; failed attempts are refused per client and slowed in
// all (lib/auth/ratelimit.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { NextResponse, type NextRequest } from 'next/server';
import { authSettings } from '@/lib/config/settings';
import { globalDelayMs, recordFailure, retryAfterSeconds } from '@/lib/auth/ratelimit';
import { clientAddress, crossSite, overHttps } from '@/lib/auth/request';
import {
  NAME,
  SESSION_COOKIE,
  SESSION_SECONDS,
  newSession,
  safeNext,
  secretMatches,
  type Role,
} from '@/lib/auth/session';

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
  if (crossSite(req.headers))
    return new NextResponse('sign-in from another site is refused', { status: 403 });
  const form = await req.formData();
  const given = form.get('secret');
  const nextField = form.get('next');
  const next = safeNext(typeof nextField === 'string' ? nextField : null);
  const auth = authSettings();
  // With DASHBOARD_AUTH=none only an operator signs in; readers need not.
  if (!auth.keys.viewer && !auth.keys.operator) return seeOther(next);
  const client = clientAddress(req);
  const wait = retryAfterSeconds(client);
  if (wait > 0) {
    const res = back('slow', next);
    res.headers.set('retry-after', String(wait));
    return res;
  }
  const delay = globalDelayMs();
  if (delay > 0) await sleep(delay);
  const typed = typeof given === 'string' && given.length <= MAX_SECRET ? given : null;
  const role: Role | null =
    typed !== null && auth.operatorSecret && secretMatches(auth.operatorSecret, typed)
      ? 'operator'
      : typed !== null && auth.secret !== null && secretMatches(auth.secret, typed)
        ? 'viewer'
        : null;
  if (!role) {
    recordFailure(client);
    return back('1', next);
  }
  const nameField = form.get('name');
  const name =
    role === 'operator' && typeof nameField === 'string' && NAME.test(nameField.trim())
      ? nameField.trim()
      : null;
  const res = seeOther(next);
  res.cookies.set(SESSION_COOKIE, newSession(auth.keys, { role, name }), {
    httpOnly: true,
    sameSite: 'strict',
    secure: overHttps(req),
    path: '/',
    maxAge: SESSION_SECONDS,
  });
  return res;
}
