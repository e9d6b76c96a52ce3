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

export const config = {
  /** The acktrail exporter, whose /api/events the dashboard reads. */
  apiUrl: url('ACKTRAIL_API_URL', 'http://127.0.0.1:9470')!,
  apiToken: process.env.ACKTRAIL_API_TOKEN ?? '',
  /** A trace UI link per trace, e.g. http://jaeger:16686/trace/{traceId}; unset: no link. */
  traceUiUrl: process.env.TRACE_UI_URL ?? null,
  /** Timeout of each request to the exporter. */
  timeoutMs: 3000,
};
