// Runs before every page: sets the Content-Security-Policy with a new nonce (lib/auth/csp.ts), and
// sends a reader without a session (lib/auth/identity.ts: a trusted proxy's user or a signed cookie) to /signin, unless the dashboard
// runs with DASHBOARD_AUTH=none. The data layer checks the session again (lib/auth/access.ts).
import { NextResponse, type NextRequest } from 'next/server';
import { config as settings } from './lib/config/settings';
import { contentSecurityPolicy } from './lib/auth/csp';
import { sessionOf } from './lib/auth/identity';
import { SESSION_COOKIE } from './lib/auth/session';

/** Reachable before signing in: the sign-in page, its form's target and its own assets. */
const PUBLIC = ['/signin', '/signin/submit', '/icon.svg'];

function signedIn(req: NextRequest): boolean {
  if (PUBLIC.includes(req.nextUrl.pathname)) return true;
  return sessionOf(req.headers, req.cookies.get(SESSION_COOKIE)?.value) !== null;
}

export default function proxy(req: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64');
  const csp = contentSecurityPolicy(
    settings.grafanaUrl,
    nonce,
    process.env.NODE_ENV === 'development',
  );
  let res: NextResponse;
  if (signedIn(req)) {
    // Next.js reads the nonce from the request's policy and puts it on its script tags.
    const headers = new Headers(req.headers);
    headers.set('content-security-policy', csp);
    res = NextResponse.next({ request: { headers } });
  } else {
    const to = req.nextUrl.clone();
    to.pathname = '/signin';
    to.search = new URLSearchParams({
      next: `${req.nextUrl.pathname}${req.nextUrl.search}`,
    }).toString();
    res = NextResponse.redirect(to);
  }
  res.headers.set('Content-Security-Policy', csp);
  return res;
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
