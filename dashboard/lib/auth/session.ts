// The dashboard's sign-in session: a cookie holding when it was issued, its role (viewer or
// operator) and the operator's name for the audit log, with an HMAC of them under the key of its
// role (sessionKeys below). A viewer knows DASHBOARD_SECRET, so the operator key never derives
// from it alone: an operator cookie is signed with a key made from DASHBOARD_OPERATOR_SECRET (or
// DASHBOARD_SESSION_KEY), and with operators off there is no operator key, so no operator cookie
// is valid. The age is checked on the server (SESSION_SECONDS from issue), whatever the browser
// keeps. Changing a role's secret changes its key and signs that role out.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'acktrail_session';
export const SESSION_SECONDS = 12 * 3600;
/** A cookie issued this far in the future (another server's clock) is still believed. */
const CLOCK_SKEW_MS = 60_000;
const VERSION = 'v2';

export type Role = 'viewer' | 'operator';
export interface Session {
  role: Role;
  /** Who acts, for the audit log: the trusted proxy's user, or the name an operator typed. */
  name: string | null;
  /** true: the name comes from a trusted proxy (verified); false: typed at sign-in (asserted). */
  verified: boolean;
}

/** The key that signs each role's cookies; null: that role cannot have a cookie. */
export type SessionKeys = Record<Role, Buffer | null>;

/** A name as the audit log keeps it: letters, digits, spaces and . _ @ -, at most 40. */
export const NAME = /^[\p{L}\p{N} ._@-]{1,40}$/u;

/**
 * Each role's signing key: an HMAC of the role and a digest of the role's own secret, under
 * DASHBOARD_SESSION_KEY when set and under the role's secret otherwise. Knowing one role's secret
 * gives no other role's key.
 */
export function sessionKeys(
  secrets: Record<Role, string | null>,
  sessionKey: string | null,
): SessionKeys {
  const key = (role: Role): Buffer | null => {
    const secret = secrets[role];
    if (!secret) return null;
    const digest = createHash('sha256').update(secret).digest('hex');
    return createHmac('sha256', sessionKey ?? secret)
      .update(`acktrail session ${VERSION}\0${role}\0${digest}`)
      .digest();
  };
  return { viewer: key('viewer'), operator: key('operator') };
}

const mac = (key: Buffer, payload: string) =>
  createHmac('sha256', key).update(payload).digest('base64url');

export function newSession(
  keys: SessionKeys,
  session: Pick<Session, 'role' | 'name'>,
  nowMs = Date.now(),
): string {
  const key = keys[session.role];
  if (!key) throw new Error(`no ${session.role} sessions are signed: its secret is not set`);
  const name = Buffer.from(session.name ?? '').toString('base64url');
  const payload = `${VERSION}.${String(nowMs)}.${session.role}.${name}`;
  return `${payload}.${mac(key, payload)}`;
}

export function readSession(
  keys: SessionKeys,
  value: string | undefined,
  nowMs = Date.now(),
): Session | null {
  if (!value || value.length > 512) return null;
  const parts = value.split('.');
  if (parts.length !== 5) return null;
  const [version, issued, role, name, signature] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (version !== VERSION || !/^\d{1,15}$/.test(issued)) return null;
  if (role !== 'viewer' && role !== 'operator') return null;
  const age = nowMs - Number(issued);
  if (age > SESSION_SECONDS * 1000 || age < -CLOCK_SKEW_MS) return null;
  const key = keys[role];
  if (!key) return null;
  const expected = Buffer.from(mac(key, `${version}.${issued}.${role}.${name}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const decoded = Buffer.from(name, 'base64url').toString();
  return { role, name: decoded && NAME.test(decoded) ? decoded : null, verified: false };
}

/** The secret the user typed, compared in constant time. */
export function secretMatches(secret: string, given: string): boolean {
  const check = (s: string) => createHmac('sha256', s).update('check').digest();
  return timingSafeEqual(check(secret), check(given));
}

const BASE = 'http://dashboard.invalid';

/**
 * Only a path of this site to return to after signing in (no open redirect). Checked the way a
 * browser will read it: resolved against this site, it must stay on this site's origin, and the
 * path it resolved to is what is returned (`/\t/evil.example` resolves to another host: refused).
 * A resolved path that starts with `//` or `/\` is refused too: `/.//evil.example` resolves to
 * the path `//evil.example`, which a browser given it as a Location reads as another host.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith('//') || path.startsWith('/\\') ? '/' : path;
}
