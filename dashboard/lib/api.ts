// Reads of the exporter's journey API, on the server, with the token. Every outcome is a value:
// pages show not-found, bad input and "exporter unreachable" states, never a stack trace.
import 'server-only';
import type { CoverageReport, Journey } from './types';
import { config } from './config';
import { requireReader } from './access';

export interface EventSummary {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  firstSeen: string;
  lastSeen: string;
  steps: number;
  anomalies: string[];
}

export type Result<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'not_found'; message: string }
  | { kind: 'bad_request'; message: string }
  | { kind: 'down'; message: string };

/** A read of journeys: only for a signed-in reader (checked here, not only in proxy.ts). */
async function get<T>(path: string): Promise<Result<T>> {
  await requireReader();
  return fetchApi<T>(path);
}

/** A read of the exporter, with the dashboard's token. */
async function fetchApi<T>(path: string): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(`${config.apiUrl}${path}`, {
      headers: { authorization: `Bearer ${config.apiToken}` },
      cache: 'no-store',
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch {
    return { kind: 'down', message: `the acktrail exporter at ${config.apiUrl} does not answer` };
  }
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (res.ok) return { kind: 'ok', value: body as T };
  const message = body.error ?? `the exporter answered ${res.status}`;
  if (res.status === 404) return { kind: 'not_found', message };
  if (res.status === 400) return { kind: 'bad_request', message };
  if (res.status === 401)
    return { kind: 'down', message: `the exporter refused the dashboard's token: ${message}` };
  return { kind: 'down', message };
}

export interface Words {
  aggregate: string;
  done: string;
}
const DEFAULT_WORDS: Words = { aggregate: 'aggregate', done: 'processed' };
let meta: { words: Words; at: number } | null = null;

/**
 * The pipeline's words (the exporter's journeys.words): "order", "payment". Asked at most every
 * 30 s; generic ones while the exporter does not answer.
 */
export async function getWords(): Promise<Words> {
  if (meta && Date.now() - meta.at < 30_000) return meta.words;
  // The words are no journey data: the sign-in page's search box shows them too.
  const r = await fetchApi<{ words: Words }>('/api/meta');
  if (r.kind !== 'ok') return meta?.words ?? DEFAULT_WORDS;
  meta = { words: r.value.words, at: Date.now() };
  return meta.words;
}

/** "an order", "a payment". */
export const withArticle = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;

export const getJourney = (eventId: string) =>
  get<Journey>(`/api/events/${encodeURIComponent(eventId)}`);

export const listEvents = (params: Record<string, string>) =>
  get<{ events: EventSummary[]; nextCursor: string | null }>(
    `/api/events?${new URLSearchParams(params).toString()}`,
  );

export const getCoverage = () => get<CoverageReport>('/api/coverage');

export function traceLink(traceId: string): string | null {
  return config.traceUiUrl ? config.traceUiUrl.replace('{traceId}', traceId) : null;
}
