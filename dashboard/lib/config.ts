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

export const config = {
  /** The acktrail exporter, whose /api/events the dashboard reads. */
  apiUrl: url('ACKTRAIL_API_URL', 'http://127.0.0.1:9470')!,
  apiToken: process.env.ACKTRAIL_API_TOKEN ?? '',
  /** With it, every page needs a signed-in session (proxy.ts); without it the dashboard is open. */
  dashboardSecret: process.env.DASHBOARD_SECRET || null,
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
