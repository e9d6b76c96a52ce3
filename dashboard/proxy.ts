// With DASHBOARD_SECRET set, every page needs a signed-in session (lib/session.ts); without it the
// dashboard is open (meant for a machine of one's own: the demo always sets one).
import { NextResponse, type NextRequest } from 'next/server';
import { SESSION_COOKIE, validSession } from './lib/session';

export default function proxy(req: NextRequest) {
  const secret = process.env.DASHBOARD_SECRET;
  if (!secret) return NextResponse.next();
  const path = req.nextUrl.pathname;
  if (path === '/signin' || path.startsWith('/signin/')) return NextResponse.next();
  if (validSession(secret, req.cookies.get(SESSION_COOKIE)?.value)) return NextResponse.next();
  const to = req.nextUrl.clone();
  to.pathname = '/signin';
  to.search = new URLSearchParams({ next: `${path}${req.nextUrl.search}` }).toString();
  return NextResponse.redirect(to);
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
