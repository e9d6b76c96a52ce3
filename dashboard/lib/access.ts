// Access checked again where the data is read, not only in proxy.ts: a page, a component or a
// route that reaches the exporter or Prometheus without a valid session gets nothing.
import 'server-only';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { authSettings } from './config';
import { SESSION_COOKIE, validSession } from './session';

/** Returns when the reader may see the data; sends them to sign in otherwise. */
export async function requireReader(): Promise<void> {
  const auth = authSettings();
  if (auth.mode === 'none') return;
  if (!validSession(auth.secret, (await cookies()).get(SESSION_COOKIE)?.value)) redirect('/signin');
}
