// Reads of Prometheus' HTTP API (/api/v1/query_range, /api/v1/query, /api/v1/rules,
// /api/v1/query_exemplars), on the server.
// Like lib/data/api.ts every outcome is a value, so a Prometheus that is down or refuses a query gives
// a banner and empty panels, never a failed page.
import 'server-only';
import { config } from '../config/settings';
import { PromqlError, withMatchers } from './promql';
import { requireReader } from '../auth/access';
import type { Result } from './api';

export interface Series {
  labels: Record<string, string>;
  /** [unix seconds, value]; NaN and ±Inf (an empty histogram's quantile) are left out. */
  points: [number, number][];
}

export interface AlertRule {
  name: string;
  query: string;
  state: 'inactive' | 'pending' | 'firing';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  alerts: { labels: Record<string, string>; state: string; activeAt: string }[];
}

interface Envelope<T> {
  status: 'success' | 'error';
  data?: T;
  error?: string;
}

async function get<T>(path: string, params: Record<string, string>): Promise<Result<T>> {
  await requireReader();
  if (params.query !== undefined && config.prometheusSelector) {
    try {
      params = { ...params, query: withMatchers(params.query, config.prometheusSelector) };
    } catch (err) {
      if (!(err instanceof PromqlError)) throw err;
      return { kind: 'bad_request', message: err.message };
    }
  }
  const url = `${config.prometheusUrl}${path}?${new URLSearchParams(params).toString()}`;
  let res: Response;
  try {
    res = await fetch(url, {
      cache: 'no-store',
      headers: config.prometheusHeaders,
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch {
    return { kind: 'down', message: `Prometheus at ${config.prometheusUrl} does not answer` };
  }
  const body = (await res.json().catch(() => ({}))) as Envelope<T>;
  if (res.ok && body.status === 'success' && body.data !== undefined)
    return { kind: 'ok', value: body.data };
  // 400 and 422 are a query Prometheus refused: a bug in our expression, not an outage.
  if (res.status === 400 || res.status === 422)
    return { kind: 'bad_request', message: body.error ?? `Prometheus answered ${res.status}` };
  return { kind: 'down', message: body.error ?? `Prometheus answered ${res.status}` };
}

function finite(values: [number, string][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [t, v] of values) {
    const n = Number(v);
    if (Number.isFinite(n)) out.push([t, n]);
  }
  return out;
}

export async function queryRange(
  expr: string,
  range: { start: number; end: number; step: number },
): Promise<Result<Series[]>> {
  const r = await get<{ result: { metric: Record<string, string>; values: [number, string][] }[] }>(
    '/api/v1/query_range',
    { query: expr, start: String(range.start), end: String(range.end), step: String(range.step) },
  );
  if (r.kind !== 'ok') return r;
  return {
    kind: 'ok',
    value: r.value.result.map((s) => ({ labels: s.metric, points: finite(s.values) })),
  };
}

/** An instant query: the series the expression returns now. */
export async function query(expr: string): Promise<Result<Series[]>> {
  const r = await get<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
    '/api/v1/query',
    { query: expr },
  );
  if (r.kind !== 'ok') return r;
  return {
    kind: 'ok',
    value: r.value.result.map((s) => ({ labels: s.metric, points: finite([s.value]) })),
  };
}

export interface Exemplar {
  labels: Record<string, string>;
  value: number;
  /** Unix seconds. */
  timestamp: number;
}

/**
 * The exemplars stored for the series `expr` selects in the range (Prometheus with exemplar
 * storage; a server without them answers with none, or an error: no marks then).
 */
export async function queryExemplars(
  expr: string,
  range: { start: number; end: number },
): Promise<Result<Exemplar[]>> {
  const r = await get<
    { exemplars: { labels: Record<string, string>; value: string; timestamp: number }[] }[]
  >('/api/v1/query_exemplars', {
    query: expr,
    start: String(range.start),
    end: String(range.end),
  });
  if (r.kind !== 'ok') return r;
  return {
    kind: 'ok',
    value: r.value.flatMap((s) =>
      s.exemplars.map((e) => ({
        labels: e.labels,
        value: Number(e.value),
        timestamp: e.timestamp,
      })),
    ),
  };
}

/** The alerting rules Prometheus has loaded, with their current state. */
export async function alertRules(): Promise<Result<AlertRule[]>> {
  const r = await get<{ groups: { rules: AlertRule[] }[] }>('/api/v1/rules', { type: 'alert' });
  if (r.kind !== 'ok') return r;
  return { kind: 'ok', value: r.value.groups.flatMap((g) => g.rules) };
}
