// The dashboard's sign-in session: a cookie holding its expiry and an HMAC of it under
// DASHBOARD_SECRET. Nothing else is stored; changing the secret signs everyone out.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'acktrail_session';
export const SESSION_SECONDS = 12 * 3600;

const mac = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(payload).digest('base64url');

export function newSession(secret: string, nowMs = Date.now()): string {
  const expires = String(nowMs + SESSION_SECONDS * 1000);
  return `${expires}.${mac(secret, expires)}`;
}

export function validSession(secret: string, value: string | undefined, nowMs = Date.now()) {
  if (!value) return false;
  const [expires, signature] = value.split('.');
  if (!expires || !signature || !/^\d+$/.test(expires) || Number(expires) < nowMs) return false;
  const expected = Buffer.from(mac(secret, expires));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

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
