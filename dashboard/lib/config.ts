// The one place the dashboard reads its environment. Server-side only: the token never reaches
// the browser.
import 'server-only';

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

/**
 * Who may read: everyone signed in with DASHBOARD_SECRET, or (DASHBOARD_AUTH=none) anyone. Who may
 * act on dead letters (see bodies, replay, discard): whoever signed in with
 * DASHBOARD_OPERATOR_SECRET; without one, nobody.
 */
export type Auth =
  | { mode: 'secret'; secret: string; operatorSecret: string | null }
  | { mode: 'none'; operatorSecret: string | null };

/** Values published in this repository's examples: never a secret anyone should run with. */
const EXAMPLE_VALUE = /change-?me/i;
const MIN_SECRET = 16;

let auth: Auth | undefined;

/**
 * The dashboard shows order data, so it never starts open by accident: DASHBOARD_SECRET (16 or
 * more characters, not an example value) or an explicit DASHBOARD_AUTH=none. Checked when the
 * server starts (instrumentation.ts), so a missing secret stops the server with this message;
 * read lazily, so `next build` needs no secret.
 */
export function authSettings(): Auth {
  if (auth) return auth;
  const mode = process.env.DASHBOARD_AUTH ?? 'secret';
  const secret = process.env.DASHBOARD_SECRET ?? '';
  if (mode !== 'secret' && mode !== 'none')
    throw new Error(
      `DASHBOARD_AUTH must be "secret" (the default) or "none", got ${JSON.stringify(mode)}`,
    );
  const operatorSecret = checkedOperatorSecret(secret);
  if (mode === 'none') return (auth = { mode: 'none', operatorSecret });
  if (!secret)
    throw new Error(
      'DASHBOARD_SECRET is not set: the dashboard shows order data and does not start open. Set DASHBOARD_SECRET (16 or more characters, e.g. `openssl rand -hex 24`), or DASHBOARD_AUTH=none on a machine of your own.',
    );
  if (secret.length < MIN_SECRET)
    throw new Error(`DASHBOARD_SECRET must be at least ${MIN_SECRET} characters`);
  if (EXAMPLE_VALUE.test(secret))
    throw new Error(
      'DASHBOARD_SECRET is an example value from the docs; choose a secret of your own',
    );
  return (auth = { mode: 'secret', secret, operatorSecret });
}

function checkedOperatorSecret(viewerSecret: string): string | null {
  const value = process.env.DASHBOARD_OPERATOR_SECRET ?? '';
  if (!value) return null;
  if (value.length < MIN_SECRET)
    throw new Error(`DASHBOARD_OPERATOR_SECRET must be at least ${MIN_SECRET} characters`);
  if (EXAMPLE_VALUE.test(value))
    throw new Error(
      'DASHBOARD_OPERATOR_SECRET is an example value from the docs; choose a secret of your own',
    );
  if (value === viewerSecret)
    throw new Error('DASHBOARD_OPERATOR_SECRET must differ from DASHBOARD_SECRET');
  return value;
}

/** The key that signs session cookies: the reader secret, or the operator's when there is none. */
export function sessionKey(a: Auth): string | null {
  return a.mode === 'secret' ? a.secret : a.operatorSecret;
}

function flag(name: string): boolean {
  const value = process.env[name] ?? '';
  if (['', '0', 'false'].includes(value)) return false;
  if (['1', 'true'].includes(value)) return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

export const config = {
  /** The acktrail exporter, whose /api/events the dashboard reads. */
  apiUrl: url('ACKTRAIL_API_URL', 'http://127.0.0.1:9470')!,
  apiToken: process.env.ACKTRAIL_API_TOKEN ?? '',
  /** The exporter's operator token: dead-letter bodies, replay and discard, for operators only. */
  operatorToken: process.env.ACKTRAIL_OPERATOR_TOKEN ?? '',
  /**
   * Behind a TLS-terminating proxy that sets X-Forwarded-For and X-Forwarded-Proto: the session
   * cookie is Secure when the proxy says https, and sign-in attempts are counted per client
   * address as the proxy saw it. Off: those headers come from the client and are not believed.
   */
  trustProxy: flag('DASHBOARD_TRUST_PROXY'),
  /** A trace UI link per trace, e.g. http://jaeger:16686/trace/{traceId}; unset: no link. */
  traceUiUrl: process.env.TRACE_UI_URL ?? null,
  /** Prometheus, whose HTTP API the overview's charts and "problems now" strip read. */
  prometheusUrl: url('PROMETHEUS_URL', 'http://127.0.0.1:9090')!,
  /** Grafana with acktrail's provisioned dashboards (grafana/); unset: the dashboard's own charts only. */
  grafanaUrl: url('GRAFANA_URL', null),
  /** The confirmation latency objective drawn on the latency chart (the alert rules use 30 s too). */
  confirmationSloSeconds: seconds('ACKTRAIL_CONFIRMATION_SLO_SECONDS', 30),
  /** Timeout of each request to the exporter or Prometheus. */
  timeoutMs: 3000,
};
