// Runs before every page: sets the Content-Security-Policy (lib/csp.ts), and with DASHBOARD_SECRET
// set, sends a reader without a signed-in session (lib/session.ts) to /signin. Without the secret
// the dashboard is open (meant for a machine of one's own: the demo always sets one).
import { NextResponse, type NextRequest } from 'next/server';
import { config as settings } from './lib/config';
import { contentSecurityPolicy } from './lib/csp';
import { SESSION_COOKIE, validSession } from './lib/session';

function gate(req: NextRequest): NextResponse {
  const secret = settings.dashboardSecret;
  if (!secret) return NextResponse.next();
  const path = req.nextUrl.pathname;
  if (path === '/signin' || path.startsWith('/signin/')) return NextResponse.next();
  if (validSession(secret, req.cookies.get(SESSION_COOKIE)?.value)) return NextResponse.next();
  const to = req.nextUrl.clone();
  to.pathname = '/signin';
  to.search = new URLSearchParams({ next: `${path}${req.nextUrl.search}` }).toString();
  return NextResponse.redirect(to);
}

export default function proxy(req: NextRequest) {
  const res = gate(req);
  res.headers.set('Content-Security-Policy', contentSecurityPolicy(settings.grafanaUrl));
  return res;
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
