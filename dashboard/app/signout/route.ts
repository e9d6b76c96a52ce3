// POST /signout: the session cookie goes, and with it access to every page. POST only, and not
// from another site's page (a link elsewhere cannot sign anyone out).
import { NextResponse, type NextRequest } from 'next/server';
import { crossSite } from '@/lib/auth/request';
import { SESSION_COOKIE } from '@/lib/auth/session';

export function POST(req: NextRequest) {
  if (crossSite(req.headers))
    return new NextResponse('sign-out from another site is refused', { status: 403 });
  const res = new NextResponse(null, { status: 303, headers: { location: '/signin' } });
  res.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 });
  return res;
}
