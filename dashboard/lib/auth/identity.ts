// Who is asking: a user named by a trusted proxy (oauth2-proxy, an ingress with SSO), an operator
// when DASHBOARD_OPERATORS lists the user, an e-mail address or one of the user's groups; else
// the signed session cookie (lib/auth/session.ts); else, with DASHBOARD_AUTH=none, a viewer. The
// identity headers are read only from a trusted proxy's connection: from anyone else they are
// ignored, whatever they say.
import 'server-only';
import { authSettings, config } from '../config/settings';
import { fromTrustedProxy } from './request';
import { readSession, type Session } from './session';

/** A user or e-mail address as a proxy sends it: printable, bounded. */
const PROXY_NAME = /^[\p{L}\p{N} ._@+-]{1,100}$/u;

function proxyUser(headers: Headers): Session | null {
  if (!fromTrustedProxy(headers)) return null;
  const user = headers.get(config.identity.user)?.trim() ?? '';
  const email = headers.get(config.identity.email)?.trim() ?? '';
  const name = [user, email].find((n) => PROXY_NAME.test(n));
  if (!name) return null;
  const groups = (headers.get(config.identity.groups) ?? '')
    .slice(0, 4096)
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const { users, groups: operatorGroups } = config.operators;
  const operator =
    (PROXY_NAME.test(user) && users.has(user)) ||
    (PROXY_NAME.test(email) && users.has(email)) ||
    groups.some((g) => operatorGroups.has(g));
  return { role: operator ? 'operator' : 'viewer', name, verified: true };
}

/**
 * The session of a request, from its headers and its session cookie; null: not signed in. Behind
 * a trusted proxy the proxy's user is who acts, also when an operator cookie (the operator secret,
 * typed) gives the role.
 */
export function sessionOf(headers: Headers, cookie: string | undefined): Session | null {
  const auth = authSettings();
  const session = readSession(auth.keys, cookie);
  const proxied = proxyUser(headers);
  if (proxied) return session?.role === 'operator' ? { ...proxied, role: 'operator' } : proxied;
  if (session) return session;
  return auth.mode === 'none' ? { role: 'viewer', name: null, verified: false } : null;
}
