// The one place the dashboard reads its environment. Server-side only: the token never reaches
// the browser.
import 'server-only';
import { readFileSync } from 'node:fs';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { checkMatchers } from '../data/promql';
import { sessionKeys, type SessionKeys } from '../auth/session';

/**
 * One variable of the environment, parsed by its schema; an empty value is unset (its default).
 * A value the schema refuses stops the dashboard with the variable's name and what it must be,
 * and the value itself unless it may hold a credential (`quote` false).
 */
function read<T>(name: string, schema: z.ZodType<T>, quote = true): T {
  const raw = process.env[name];
  const result = schema.safeParse(raw === '' ? undefined : raw);
  if (result.success) return result.data;
  const why = result.error.issues[0]?.message ?? 'is not valid';
  throw new Error(`${name} ${why}${quote ? `, got ${JSON.stringify(raw)}` : ''}`);
}

/** An absolute http or https URL, without its trailing slash. */
const urlText = z
  .string({ error: 'must be a URL' })
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), {
    error: 'must be an http or https URL',
  })
  .transform((v) => new URL(v).toString().replace(/\/$/, ''));

/** A number of seconds from the environment, more than 0. */
const seconds = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a positive number of seconds' })
    .positive({ error: 'must be a positive number of seconds' })
    .default(fallback);

/** A whole number from the environment, from 1 to `max`. */
const whole = (fallback: number, max: number) =>
  z.coerce
    .number()
    .int({ error: `must be a whole number from 1 to ${max}` })
    .min(1, { error: `must be a whole number from 1 to ${max}` })
    .max(max, { error: `must be a whole number from 1 to ${max}` })
    .default(fallback);

/** An HTTP header's name, lower-cased. */
const headerName = (fallback: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9-]{1,64}$/, { error: 'must be an HTTP header name' })
    .default(fallback);

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

/** A sign-in secret: long enough, and not a value the docs print. '' is unset. */
const signInSecret = z
  .string()
  .transform((v) => v || null)
  .pipe(
    z
      .string()
      .min(MIN_SECRET, { error: `must be at least ${MIN_SECRET} characters` })
      .refine((v) => !EXAMPLE_VALUE.test(v), {
        error: 'is an example value from the docs; choose a secret of your own',
      })
      .nullable(),
  );

/** The cookies' own signing key (lib/auth/session.ts), where one is set. */
const sessionKey = z
  .string()
  .transform((v) => v || null)
  .pipe(z.string().min(32, { error: 'must be at least 32 characters' }).nullable());

/**
 * The dashboard shows order data, so it never starts open by accident: DASHBOARD_SECRET (16 or
 * more characters, not an example value) or an explicit DASHBOARD_AUTH=none. Checked when the
 * server starts (instrumentation.ts), so a missing secret stops the server with this message;
 * read lazily, so `next build` needs no secret.
 */
export function authSettings(): Auth {
  if (auth) return auth;
  const mode = read(
    'DASHBOARD_AUTH',
    z
      .enum(['secret', 'none'], { error: 'must be "secret" (the default) or "none"' })
      .default('secret'),
  );
  const given = secretEnv('DASHBOARD_SECRET');
  if (mode === 'secret' && !given)
    throw new Error(
      'DASHBOARD_SECRET is not set: the dashboard shows order data and does not start open. Set DASHBOARD_SECRET (16 or more characters, e.g. `openssl rand -hex 24`), or DASHBOARD_AUTH=none on a machine of your own.',
    );
  const secret = mode === 'secret' ? readSecret('DASHBOARD_SECRET', signInSecret, given) : null;
  const operatorSecret = readSecret('DASHBOARD_OPERATOR_SECRET', signInSecret);
  if (operatorSecret !== null && operatorSecret === secret)
    throw new Error('DASHBOARD_OPERATOR_SECRET must differ from DASHBOARD_SECRET');
  const sk = readSecret('DASHBOARD_SESSION_KEY', sessionKey);
  if (sk !== null && (sk === secret || sk === operatorSecret))
    throw new Error('DASHBOARD_SESSION_KEY must differ from the sign-in secrets');
  const keys = sessionKeys({ viewer: secret, operator: operatorSecret }, sk);
  return (auth = { mode, secret, operatorSecret, keys });
}

/** A comma-separated list's items, trimmed, empty ones left out. */
const items = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Addresses and CIDRs (a comma-separated list) whose requests may say who the user is. */
const addressList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const given = items(value);
    if (given.length === 0) return null;
    const list = new BlockList();
    for (const item of given) {
      const [address = '', bits, extra] = item.split('/');
      const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
      const prefix = bits === undefined ? null : Number(bits);
      const max = family === 'ipv4' ? 32 : 128;
      if (
        !family ||
        extra !== undefined ||
        (prefix !== null && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max))
      ) {
        ctx.addIssue({
          code: 'custom',
          message: `must list addresses or CIDRs (e.g. 10.0.0.0/8, ::1): ${JSON.stringify(item)} is neither`,
        });
        return z.NEVER;
      }
      if (prefix === null) list.addAddress(address, family);
      else list.addSubnet(address, prefix, family);
    }
    return list;
  });

/** PROMETHEUS_URL without user and password (fetch refuses them; they become Basic auth). */
function withoutCredentials(value: string): string {
  const u = new URL(value);
  u.username = '';
  u.password = '';
  return u.toString().replace(/\/$/, '');
}

/** Label matchers added to every query (PROMETHEUS_SELECTOR), checked by PromQL's grammar. */
const matchers = z
  .string()
  .trim()
  .default('')
  .transform((value, ctx) => {
    if (!value) return '';
    try {
      return checkMatchers(value);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `must be label matchers, e.g. cluster="eu-1": ${(err as Error).message}`,
      });
      return z.NEVER;
    }
  });

/**
 * `Name=value` pairs separated by commas, values URL-encoded (PROMETHEUS_HEADERS): a secret, so a
 * bad pair is named by its place, never its text.
 */
const headerPairs = z.string().transform((value, ctx) => {
  const headers: Record<string, string> = {};
  for (const [i, item] of items(value).entries()) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq).trim().toLowerCase() : '';
    if (!/^[a-z0-9-]{1,64}$/.test(key)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be Name=value pairs separated by commas: pair ${i + 1} is not`,
      });
      return z.NEVER;
    }
    headers[key] = decodeURIComponent(item.slice(eq + 1).trim());
  }
  return headers;
});

/** A secret's text (read once) parsed by its schema; an error names the variable, never the value. */
function readSecret<T>(name: string, schema: z.ZodType<T>, text = secretEnv(name)): T {
  const result = schema.safeParse(text);
  if (result.success) return result.data;
  throw new Error(`${name} ${result.error.issues[0]?.message ?? 'is not valid'}`);
}

function prometheusHeaders(): Record<string, string> {
  const given = new URL(process.env.PROMETHEUS_URL || 'http://127.0.0.1:9090');
  const basic = given.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(given.username)}:${decodeURIComponent(given.password)}`).toString('base64')}`
    : null;
  return {
    ...(basic ? { authorization: basic } : {}),
    ...readSecret('PROMETHEUS_HEADERS', headerPairs),
  };
}

/** Users, e-mail addresses and `group:NAME` entries, comma-separated. */
const allowList = z
  .string()
  .optional()
  .transform((value) => {
    const given = items(value);
    return {
      users: new Set(given.filter((i) => !i.startsWith('group:'))),
      groups: new Set(given.filter((i) => i.startsWith('group:')).map((i) => i.slice(6))),
    };
  });

// A true/false switch could not say which proxy: trusting every peer let any client claim https.
if (process.env.DASHBOARD_TRUST_PROXY)
  throw new Error(
    'DASHBOARD_TRUST_PROXY is replaced by DASHBOARD_TRUSTED_PROXY: the addresses or CIDRs of the proxies in front',
  );

export const config = {
  /** The acktrail exporter, whose /api/events the dashboard reads. */
  apiUrl: read('ACKTRAIL_API_URL', urlText.default('http://127.0.0.1:9470')),
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
  trustedProxy: read('DASHBOARD_TRUSTED_PROXY', addressList),
  /**
   * How many proxies in a row append to X-Forwarded-For before the trusted one's request reaches
   * the dashboard (DASHBOARD_TRUSTED_HOPS, default 1): the client is that many entries from the
   * right. Behind a load balancer and an ingress, 2; with 1 every client would share the load
   * balancer's sign-in limit.
   */
  trustedHops: read('DASHBOARD_TRUSTED_HOPS', whole(1, 10)),
  /** The headers a trusted proxy names its user in (oauth2-proxy's by default). */
  identity: {
    user: read('DASHBOARD_USER_HEADER', headerName('x-forwarded-user')),
    email: read('DASHBOARD_EMAIL_HEADER', headerName('x-forwarded-email')),
    groups: read('DASHBOARD_GROUPS_HEADER', headerName('x-forwarded-groups')),
  },
  /** Proxy users, e-mail addresses or `group:NAME`s who are operators (DASHBOARD_OPERATORS). */
  operators: read('DASHBOARD_OPERATORS', allowList),
  /** A trace UI link per trace, e.g. http://jaeger:16686/trace/{traceId}; unset: no link. */
  traceUiUrl: read('TRACE_UI_URL', z.string().nullable().default(null)),
  /** Prometheus, whose HTTP API the overview's charts and "problems now" strip read. */
  prometheusUrl: withoutCredentials(
    read('PROMETHEUS_URL', urlText.default('http://127.0.0.1:9090'), false),
  ),
  /**
   * Label matchers added to every query (PROMETHEUS_SELECTOR, e.g. `cluster="eu-1"`): this
   * pipeline's series in a Prometheus shared by many. Empty: none.
   */
  prometheusSelector: read('PROMETHEUS_SELECTOR', matchers),
  /**
   * Headers sent with every Prometheus request: PROMETHEUS_HEADERS (`Name=value,Name2=value2`,
   * values URL-encoded, as OTEL_EXPORTER_OTLP_HEADERS; e.g. X-Scope-OrgID for Mimir, Cortex and
   * Thanos, or Authorization), and Basic auth from credentials in PROMETHEUS_URL.
   */
  prometheusHeaders: prometheusHeaders(),
  /** Grafana with acktrail's provisioned dashboards (grafana/); unset: the dashboard's own charts only. */
  grafanaUrl: read('GRAFANA_URL', urlText.nullable().default(null)),
  /** The confirmation latency objective drawn on the latency chart (the alert rules use 30 s too). */
  confirmationSloSeconds: read('ACKTRAIL_CONFIRMATION_SLO_SECONDS', seconds(30)),
  /** Timeout of each request to the exporter or Prometheus. */
  timeoutMs: 3000,
};
