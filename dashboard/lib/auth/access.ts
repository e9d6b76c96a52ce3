// Access checked again where the data is read, not only in proxy.ts: a page, a component or a
// route that reaches the exporter or Prometheus without a valid session gets nothing; what only
// operators may see or do checks the operator role here.
import 'server-only';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { sessionOf } from './identity';
import { SESSION_COOKIE, type Session } from './session';

/** The signed-in session (lib/auth/identity.ts); null: not signed in. */
export async function currentSession(): Promise<Session | null> {
  const [h, c] = await Promise.all([headers(), cookies()]);
  return sessionOf(h, c.get(SESSION_COOKIE)?.value);
}

/** Returns when the reader may see the data; sends them to sign in otherwise. */
export async function requireReader(): Promise<Session> {
  const session = await currentSession();
  if (!session) redirect('/signin');
  return session;
}

/** Whether the signed-in reader is an operator. */
export async function isOperator(): Promise<boolean> {
  return (await currentSession())?.role === 'operator';
}
