// Reads of the exporter's journey API, on the server, with the token. Every outcome is a value:
// pages show not-found, bad input and "exporter unreachable" states, never a stack trace.
import 'server-only';
import type {
  AuditEntry,
  CoverageReport,
  DeadLetter,
  DeadLetterGroup,
  Journey,
  LookupAnswer,
  QueueSummary,
  ReplayJob,
  ReplayPlan,
} from './types';
import { config } from '../config/settings';
import { requireReader } from '../auth/access';
import { actorHeaders, type Actor } from '../auth/actor';

export interface EventSummary {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  /** Absent on a row no span has named yet (an outbox row without its made-at time). */
  firstSeen?: string;
  lastSeen?: string;
  steps: number;
  anomalies: string[];
}

export type Result<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'not_found'; message: string }
  | { kind: 'bad_request'; message: string }
  | { kind: 'refused'; status: number; message: string; body?: unknown }
  | { kind: 'down'; message: string };

/** A read of journeys: only for a signed-in reader (checked here, not only in proxy.ts). */
async function get<T>(path: string): Promise<Result<T>> {
  await requireReader();
  return fetchApi<T>(path);
}

/** A request to the exporter, with the dashboard's token (the operator's, when given). */
async function fetchApi<T>(
  path: string,
  init: { token?: string; body?: unknown; actor?: Actor | null } = {},
): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(`${config.apiUrl}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${init.token ?? config.apiToken}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...actorHeaders(init.actor),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch {
    return { kind: 'down', message: `the acktrail exporter at ${config.apiUrl} does not answer` };
  }
  const body = (await res.json().catch(() => ({}))) as { error?: string; ids?: unknown };
  if (res.ok) return { kind: 'ok', value: body as T };
  const message = body.error ?? `the exporter answered ${res.status}`;
  if (res.status === 404) return { kind: 'not_found', message };
  if (res.status === 400) return { kind: 'bad_request', message };
  if (res.status === 401)
    return { kind: 'down', message: `the exporter refused the dashboard's token: ${message}` };
  if (res.status === 403 || res.status === 409 || res.status === 502)
    return { kind: 'refused', status: res.status, message, body };
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

/** How long the overview's event lists are reused: its shortest auto-refresh interval. */
const LIST_TTL_MS = 10_000;
const lists = new Map<string, { at: number; answer: ReturnType<typeof listEvents> }>();

/**
 * An event list as the overview shows it (the heaviest reads: anomalies over 24 h), read once per
 * LIST_TTL_MS whoever asks, and once at a time: every viewer's page and every auto-refresh share
 * it. Only an answer that was read is kept.
 */
export async function recentEvents(params: Record<string, string>) {
  await requireReader();
  const key = new URLSearchParams(params).toString();
  const now = Date.now();
  const hit = lists.get(key);
  if (hit && now - hit.at < LIST_TTL_MS) return hit.answer;
  const answer = listEvents(params);
  lists.set(key, { at: now, answer });
  void answer.then((a) => {
    if (a.kind !== 'ok' && lists.get(key)?.answer === answer) lists.delete(key);
  });
  return answer;
}

/** A row of the journeys list (GET /api/journeys): its verdict in words, and its class. */
export interface JourneyRow {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  verdict: string;
  class: string;
  kinds: string[];
  traced: boolean;
  deliveries: number;
  at: string;
}

export interface JourneyPage {
  journeys: JourneyRow[];
  nextCursor: string | null;
  scanned: number;
  partial: boolean;
  count: { value: number; exact: boolean } | null;
}

/** One page of the journeys list with these filters (docs/api.md, "Finding journeys"). */
export const searchJourneys = (params: Record<string, string>) =>
  get<JourneyPage>(`/api/journeys?${new URLSearchParams(params).toString()}`);

/** The same page as the API writes it for a download (CSV or JSON), and its content type. */
export async function exportJourneys(
  params: Record<string, string>,
): Promise<
  { kind: 'ok'; body: string; type: string } | { kind: 'failed'; status: number; message: string }
> {
  await requireReader();
  const res = await fetch(
    `${config.apiUrl}/api/journeys?${new URLSearchParams(params).toString()}`,
    {
      headers: { authorization: `Bearer ${config.apiToken}` },
      cache: 'no-store',
      signal: AbortSignal.timeout(config.timeoutMs),
    },
  ).catch(() => null);
  if (!res)
    return { kind: 'failed', status: 502, message: 'the acktrail exporter does not answer' };
  const body = await res.text();
  if (!res.ok) return { kind: 'failed', status: res.status, message: body };
  return { kind: 'ok', body, type: res.headers.get('content-type') ?? 'application/json' };
}

/** What each business-key lookup found for a value (the value stays out of URLs). */
export async function findByLookups(value: string) {
  await requireReader();
  return fetchApi<{ lookups: LookupAnswer[] }>('/api/lookups', { body: { value } });
}

type LookupNames = { lookups: { name: string; description: string | null }[] };
let lookupNames: { answer: Result<LookupNames>; at: number } | null = null;

/** The lookups configured, for the search box's words: asked at most every 30 s. */
export async function listLookups(): Promise<Result<LookupNames>> {
  if (lookupNames && Date.now() - lookupNames.at < 30_000) return lookupNames.answer;
  const answer = await get<LookupNames>('/api/lookups');
  if (answer.kind === 'ok') lookupNames = { answer, at: Date.now() };
  return answer;
}

export const getCoverage = () => get<CoverageReport>('/api/coverage');

/** The work queues with their health status and oldest waiting event (GET /api/queues). */
export const getWorkQueues = () => get<{ queues: QueueSummary[] }>('/api/queues?role=work');

export function traceLink(traceId: string): string | null {
  return config.traceUiUrl ? config.traceUiUrl.replace('{traceId}', traceId) : null;
}

// Dead letters (docs/api.md "Dead letters"). Operators read with the operator token, which lets
// the exporter add a message's headers and body; everyone else with the read token.

async function asReader<T>(path: string): Promise<Result<T>> {
  const session = await requireReader();
  // An operator's read may show a body: the exporter's audit log names who read it.
  return fetchApi<T>(
    path,
    session.role === 'operator' ? { token: config.operatorToken, actor: session } : {},
  );
}

export const getDeadLetterGroups = () =>
  asReader<{ groups: (DeadLetterGroup & { id: string })[] }>('/api/dead-letters/groups');

export const listDeadLetters = (params: Record<string, string>) =>
  asReader<{ deadLetters: DeadLetter[]; next: string | null }>(
    `/api/dead-letters?${new URLSearchParams(params).toString()}`,
  );

export interface DeadLetterContent {
  properties: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: { text: string } | { base64: string };
}

/** One parked message as GET /api/dead-letters/{id} answers it. */
export type DeadLetterDetail = DeadLetter & {
  groupId: string;
  content: DeadLetterContent | null;
  /** Why the content did not open (sealed with a key the exporter lacks), for operators. */
  contentError?: string;
};

export const getDeadLetter = (id: string) =>
  asReader<DeadLetterDetail>(`/api/dead-letters/${encodeURIComponent(id)}`);

export const getAudit = (params: Record<string, string>) =>
  asReader<{ entries: AuditEntry[]; next: string | null }>(
    `/api/dead-letters/audit?${new URLSearchParams(params).toString()}`,
  );

export const listJobs = () => asReader<{ jobs: ReplayJob[] }>('/api/dead-letters/jobs');
export const getJob = (id: string) =>
  asReader<ReplayJob>(`/api/dead-letters/jobs/${encodeURIComponent(id)}`);

/** Where a bulk replay would send each message, and which it would refuse; publishes nothing. */
export async function planReplay(selection: { group: string } | { ids: string[] }) {
  const session = await requireReader();
  return fetchApi<ReplayPlan>('/api/dead-letters/replay', {
    token: config.operatorToken,
    body: { ...selection, dryRun: true },
    actor: session,
  });
}

/** Who acts, for the exporter's audit log: a name, verified by a trusted proxy or typed. */

/** A change made by an operator (the caller checked the role), named for the audit log. */
export const operate = <T>(path: string, body: unknown, actor: Actor) =>
  fetchApi<T>(path, { token: config.operatorToken, body, actor });
