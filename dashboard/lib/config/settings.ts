// The one place the dashboard reads its environment. Server-side only: the token never reaches
// the browser.
import 'server-only';
import { readFileSync } from 'node:fs';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { checkMatchers } from '../data/promql';
import { sessionKeys, type SessionKeys } from '../auth/session';

function url(name: string, fallback: string | null): string | null {
  const value = process.env[name] ?? fallback;
  if (value === null || value === '') return null;
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new Error(`${name} must be a URL, got ${JSON.stringify(value)}`);
  }
}

function seconds(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`${name} must be a positive number of seconds, got ${JSON.stringify(value)}`);
  return n;
}

/** A whole number from the environment, within bounds. */
function whole(name: string, fallback: number, max: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new Error(
      `${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}

/** A secret from the environment, or from the file its `_FILE` form names (Docker, Kubernetes). */
function secretEnv(name: string): string {
  const file = process.env[`${name}_FILE`];
  if (file) {
    if (process.env[name]) throw new Error(`set ${name} or ${name}_FILE, not both`);
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new Error(`${name}_FILE: cannot read ${file}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  return process.env[name] ?? '';
}

/**
 * Who may read: everyone signed in with DASHBOARD_SECRET, a user a trusted proxy names, or
 * (DASHBOARD_AUTH=none) anyone. Who may act on dead letters (see bodies, replay, discard):
 * whoever signed in with DASHBOARD_OPERATOR_SECRET, or a proxy user in DASHBOARD_OPERATORS.
 */
export interface Auth {
  mode: 'secret' | 'none';
  /** The viewers' secret; null with DASHBOARD_AUTH=none. */
  secret: string | null;
  operatorSecret: string | null;
  /** Each role's cookie signing key (lib/auth/session.ts). */
  keys: SessionKeys;
}

/** Values published in this repository's examples: never a secret anyone should run with. */
const EXAMPLE_VALUE = /change-?me/i;
const MIN_SECRET = 16;

let auth: Auth | undefined;

function checkedSecret(name: string, value: string): string {
  if (value.length < MIN_SECRET)
    throw new Error(`${name} must be at least ${MIN_SECRET} characters`);
  if (EXAMPLE_VALUE.test(value))
    throw new Error(`${name} is an example value from the docs; choose a secret of your own`);
  return value;
}

/**
 * The dashboard shows order data, so it never starts open by accident: DASHBOARD_SECRET (16 or
 * more characters, not an example value) or an explicit DASHBOARD_AUTH=none. Checked when the
 * server starts (instrumentation.ts), so a missing secret stops the server with this message;
 * read lazily, so `next build` needs no secret.
 */
export function authSettings(): Auth {
  if (auth) return auth;
  const mode = process.env.DASHBOARD_AUTH ?? 'secret';
  if (mode !== 'secret' && mode !== 'none')
    throw new Error(
      `DASHBOARD_AUTH must be "secret" (the default) or "none", got ${JSON.stringify(mode)}`,
    );
  const given = secretEnv('DASHBOARD_SECRET');
  if (mode === 'secret' && !given)
    throw new Error(
      'DASHBOARD_SECRET is not set: the dashboard shows order data and does not start open. Set DASHBOARD_SECRET (16 or more characters, e.g. `openssl rand -hex 24`), or DASHBOARD_AUTH=none on a machine of your own.',
    );
  const secret = mode === 'secret' ? checkedSecret('DASHBOARD_SECRET', given) : null;
  const op = secretEnv('DASHBOARD_OPERATOR_SECRET');
  const operatorSecret = op ? checkedSecret('DASHBOARD_OPERATOR_SECRET', op) : null;
  if (operatorSecret !== null && operatorSecret === secret)
    throw new Error('DASHBOARD_OPERATOR_SECRET must differ from DASHBOARD_SECRET');
  const sk = secretEnv('DASHBOARD_SESSION_KEY');
  if (sk && sk.length < 32) throw new Error('DASHBOARD_SESSION_KEY must be at least 32 characters');
  if (sk && (sk === secret || sk === operatorSecret))
    throw new Error('DASHBOARD_SESSION_KEY must differ from the sign-in secrets');
  const keys = sessionKeys({ viewer: secret, operator: operatorSecret }, sk || null);
  return (auth = { mode, secret, operatorSecret, keys });
}

/** Addresses and CIDRs (a comma-separated list) whose requests may say who the user is. */
function addresses(name: string): BlockList | null {
  const value = process.env[name] ?? '';
  if (!value.trim()) return null;
  const list = new BlockList();
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [address = '', bits, extra] = item.split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    const prefix = bits === undefined ? null : Number(bits);
    const max = family === 'ipv4' ? 32 : 128;
    if (
      !family ||
      extra !== undefined ||
      (prefix !== null && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max))
    )
      throw new Error(
        `${name} must list addresses or CIDRs (e.g. 10.0.0.0/8, ::1), got ${JSON.stringify(item)}`,
      );
    if (prefix === null) list.addAddress(address, family);
    else list.addSubnet(address, prefix, family);
  }
  return list;
}

/** PROMETHEUS_URL without user and password (fetch refuses them; they become Basic auth). */
function withoutCredentials(value: string): string {
  const u = new URL(value);
  u.username = '';
  u.password = '';
  return u.toString().replace(/\/$/, '');
}

function selector(name: string): string {
  const value = (process.env[name] ?? '').trim();
  if (!value) return '';
  try {
    return checkMatchers(value);
  } catch (err) {
    throw new Error(
      `${name} must be label matchers, e.g. cluster="eu-1": ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

function prometheusHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const given = new URL(process.env.PROMETHEUS_URL || 'http://127.0.0.1:9090');
  if (given.username)
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(given.username)}:${decodeURIComponent(given.password)}`).toString('base64')}`;
  for (const item of secretEnv('PROMETHEUS_HEADERS')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq).trim().toLowerCase() : '';
    if (!/^[a-z0-9-]{1,64}$/.test(key))
      throw new Error(
        `PROMETHEUS_HEADERS must be Name=value pairs separated by commas, got ${JSON.stringify(item.slice(0, 40))}`,
      );
    headers[key] = decodeURIComponent(item.slice(eq + 1).trim());
  }
  return headers;
}

/** A header name from the environment, lower-cased, or the default. */
function headerName(name: string, fallback: string): string {
  const value = (process.env[name] ?? '').trim().toLowerCase();
  if (!value) return fallback;
  if (!/^[a-z0-9-]{1,64}$/.test(value))
    throw new Error(`${name} must be an HTTP header name, got ${JSON.stringify(value)}`);
  return value;
}

/** Users, e-mail addresses and `group:NAME` entries, comma-separated. */
function allowList(name: string) {
  const items = (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    users: new Set(items.filter((i) => !i.startsWith('group:'))),
    groups: new Set(items.filter((i) => i.startsWith('group:')).map((i) => i.slice(6))),
  };
}

// A true/false switch could not say which proxy: trusting every peer let any client claim https.
if (process.env.DASHBOARD_TRUST_PROXY)
  throw new Error(
    'DASHBOARD_TRUST_PROXY is replaced by DASHBOARD_TRUSTED_PROXY: the addresses or CIDRs of the proxies in front',
  );

export const config = {
  /** The acktrail exporter, whose /api/events the dashboard reads. */
  apiUrl: url('ACKTRAIL_API_URL', 'http://127.0.0.1:9470')!,
  apiToken: secretEnv('ACKTRAIL_API_TOKEN'),
  /** The exporter's operator token: dead-letter bodies, replay and discard, for operators only. */
  operatorToken: secretEnv('ACKTRAIL_OPERATOR_TOKEN'),
  /**
   * The proxies in front (DASHBOARD_TRUSTED_PROXY: addresses or CIDRs), e.g. oauth2-proxy or an
   * ingress with SSO. Only a request whose TCP peer is one of them is believed when it says who
   * the user is (`identity` headers), where the client is (X-Forwarded-For, for the sign-in
   * limits), that it came over https (the cookie is then Secure) and which host it asked for.
   * null: no proxy is trusted, those headers are ignored.
   */
  trustedProxy: addresses('DASHBOARD_TRUSTED_PROXY'),
  /**
   * How many proxies in a row append to X-Forwarded-For before the trusted one's request reaches
   * the dashboard (DASHBOARD_TRUSTED_HOPS, default 1): the client is that many entries from the
   * right. Behind a load balancer and an ingress, 2; with 1 every client would share the load
   * balancer's sign-in limit.
   */
  trustedHops: whole('DASHBOARD_TRUSTED_HOPS', 1, 10),
  /** The headers a trusted proxy names its user in (oauth2-proxy's by default). */
  identity: {
    user: headerName('DASHBOARD_USER_HEADER', 'x-forwarded-user'),
    email: headerName('DASHBOARD_EMAIL_HEADER', 'x-forwarded-email'),
    groups: headerName('DASHBOARD_GROUPS_HEADER', 'x-forwarded-groups'),
  },
  /** Proxy users, e-mail addresses or `group:NAME`s who are operators (DASHBOARD_OPERATORS). */
  operators: allowList('DASHBOARD_OPERATORS'),
  /** A trace UI link per trace, e.g. http://jaeger:16686/trace/{traceId}; unset: no link. */
  traceUiUrl: process.env.TRACE_UI_URL ?? null,
  /** Prometheus, whose HTTP API the overview's charts and "problems now" strip read. */
  prometheusUrl: withoutCredentials(url('PROMETHEUS_URL', 'http://127.0.0.1:9090')!),
  /**
   * Label matchers added to every query (PROMETHEUS_SELECTOR, e.g. `cluster="eu-1"`): this
   * pipeline's series in a Prometheus shared by many. Empty: none.
   */
  prometheusSelector: selector('PROMETHEUS_SELECTOR'),
  /**
   * Headers sent with every Prometheus request: PROMETHEUS_HEADERS (`Name=value,Name2=value2`,
   * values URL-encoded, as OTEL_EXPORTER_OTLP_HEADERS; e.g. X-Scope-OrgID for Mimir, Cortex and
   * Thanos, or Authorization), and Basic auth from credentials in PROMETHEUS_URL.
   */
  prometheusHeaders: prometheusHeaders(),
  /** Grafana with acktrail's provisioned dashboards (grafana/); unset: the dashboard's own charts only. */
  grafanaUrl: url('GRAFANA_URL', null),
  /** The confirmation latency objective drawn on the latency chart (the alert rules use 30 s too). */
  confirmationSloSeconds: seconds('ACKTRAIL_CONFIRMATION_SLO_SECONDS', 30),
  /** Timeout of each request to the exporter or Prometheus. */
  timeoutMs: 3000,
};
