// The dashboard's sign-in session: a cookie holding its expiry, its role (viewer or operator) and
// the operator's name for the audit log, with an HMAC of them under the session key
// (lib/config.ts sessionKey). Nothing else is stored; changing the secret signs everyone out.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'acktrail_session';
export const SESSION_SECONDS = 12 * 3600;

export type Role = 'viewer' | 'operator';
export interface Session {
  role: Role;
  /** The name an operator gave at sign-in, for the audit log; null when none. */
  name: string | null;
}

/** A name as the audit log keeps it: letters, digits, spaces and . _ @ -, at most 40. */
export const NAME = /^[\p{L}\p{N} ._@-]{1,40}$/u;

const mac = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(payload).digest('base64url');

export function newSession(
  secret: string,
  session: Session = { role: 'viewer', name: null },
  nowMs = Date.now(),
): string {
  const name = Buffer.from(session.name ?? '').toString('base64url');
  const payload = `${String(nowMs + SESSION_SECONDS * 1000)}.${session.role}.${name}`;
  return `${payload}.${mac(secret, payload)}`;
}

export function readSession(
  secret: string | null,
  value: string | undefined,
  nowMs = Date.now(),
): Session | null {
  if (!secret || !value) return null;
  const parts = value.split('.');
  if (parts.length !== 4) return null;
  const [expires, role, name, signature] = parts as [string, string, string, string];
  if (!/^\d+$/.test(expires) || Number(expires) < nowMs) return null;
  if (role !== 'viewer' && role !== 'operator') return null;
  const expected = Buffer.from(mac(secret, `${expires}.${role}.${name}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const decoded = Buffer.from(name, 'base64url').toString();
  return { role, name: decoded && NAME.test(decoded) ? decoded : null };
}

export const validSession = (
  secret: string | null,
  value: string | undefined,
  nowMs = Date.now(),
) => readSession(secret, value, nowMs) !== null;

/** The secret the user typed, compared in constant time. */
export function secretMatches(secret: string, given: string): boolean {
  const a = Buffer.from(mac(secret, 'check'));
  const b = Buffer.from(mac(given, 'check'));
  return timingSafeEqual(a, b);
}

const BASE = 'http://dashboard.invalid';

/**
 * Only a path of this site to return to after signing in (no open redirect). Checked the way a
 * browser will read it: resolved against this site, it must stay on this site's origin, and the
 * path it resolved to is what is returned (`/\t/evil.example` resolves to another host: refused).
 */
export function safeNext(next: string | null | undefined): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  return url.origin === BASE ? `${url.pathname}${url.search}${url.hash}` : '/';
}
