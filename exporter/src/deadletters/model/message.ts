// What a dead-lettered message says about its failure, read from AMQP facts only: the broker's
// x-death history, the reason headers the config names (an application that dead-letters by
// itself writes its error there, as Spring AMQP's x-exception-message does), and where a replay
// should go. Nothing here knows a pipeline's own names.
import type { ConsumeMessage } from 'amqplib';

export interface Death {
  queue: string;
  reason: string;
  count: number;
  exchange: string;
  routingKeys: string[];
  /** Seconds since the epoch, where the broker said. */
  time: number | null;
}

export interface ReplayTarget {
  exchange: string;
  routingKey: string;
  /** What said so: x-death, the x-original-* headers, or the config. */
  source: 'x-death' | 'headers' | 'config';
}

const text = (v: unknown, max = 255): string =>
  (Buffer.isBuffer(v)
    ? v.toString('utf8')
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : ''
  ).slice(0, max);

/** x-death, most recent first (as RabbitMQ keeps it), at most 20 entries. */
export function deathsOf(headers: Record<string, unknown>): Death[] {
  const raw = headers['x-death'];
  if (!Array.isArray(raw)) return [];
  return raw.slice(0, 20).flatMap((d: unknown) => {
    if (d === null || typeof d !== 'object') return [];
    const e = d as Record<string, unknown>;
    const time = e.time as { value?: unknown } | number | undefined;
    const t = typeof time === 'number' ? time : Number(time?.value);
    return [
      {
        queue: text(e.queue),
        reason: text(e.reason, 40),
        count: Number(e.count) || 1,
        exchange: text(e.exchange),
        routingKeys: Array.isArray(e['routing-keys'])
          ? (e['routing-keys'] as unknown[]).slice(0, 10).map((k) => text(k))
          : [],
        time: Number.isFinite(t) ? t : null,
      },
    ];
  });
}

/** The failure's own words: the first reason header present, else x-death's reason. */
export function reasonOf(
  headers: Record<string, unknown>,
  deaths: Death[],
  reasonHeaders: readonly string[],
): { reason: string; source: string } {
  for (const h of reasonHeaders) {
    const v = headers[h];
    if (v !== undefined && v !== null && text(v, 500).trim() !== '')
      return { reason: text(v, 500).trim(), source: h };
  }
  const last = deaths[0];
  if (last) return { reason: last.reason, source: 'x-death' };
  return { reason: 'unknown', source: 'none' };
}

/**
 * The reason (already scrubbed: bounded, e-mail addresses masked as <email>) with what else
 * varies between messages of one cause masked, so that failures group: UUIDs, long hex ids and
 * numbers. "order 1045 not found" and "order 77 not found" are one group: "order <n> not found".
 */
export function normaliseReason(reason: string): string {
  return reason
    .slice(0, 500)
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b[0-9a-f]{16,}\b/gi, '<id>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/**
 * Where the message says a replay should go, as parked: the config's replayTo for its queue; else
 * the x-original-exchange / x-original-routingKey headers that an application writes when it
 * dead-letters a message itself (Spring AMQP's convention); else the exchange and first routing
 * key of x-death's most recent entry. Only a candidate: whether a replay may go there is decided
 * when it runs (targets.ts), since a producer writes these headers (x-death too) as it likes.
 */
export function replayTargetOf(
  headers: Record<string, unknown>,
  deaths: Death[],
  configured: { exchange: string; routingKey: string } | undefined,
): ReplayTarget | null {
  if (configured) return { ...configured, source: 'config' };
  const ex = headers['x-original-exchange'];
  const rk = headers['x-original-routingKey'];
  if (ex !== undefined && rk !== undefined)
    return { exchange: text(ex), routingKey: text(rk), source: 'headers' };
  const last = deaths[0];
  if (last?.routingKeys[0] !== undefined)
    return { exchange: last.exchange, routingKey: last.routingKeys[0], source: 'x-death' };
  return null;
}

/** Headers that describe the last death: a replayed copy starts without them. */
export const DEATH_HEADERS = [
  'x-original-exchange',
  'x-original-routingKey',
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
];

/** Headers acktrail writes on a replayed copy. */
export const REPLAY_HEADERS = {
  id: 'x-acktrail-replay-id',
  by: 'x-acktrail-replayed-by',
  at: 'x-acktrail-replayed-at',
} as const;

/**
 * Headers that add routes to a publish: RabbitMQ's sender-selected distribution also delivers to
 * the queues that the `CC` and `BCC` keys reach through the exchange published to (on the default
 * exchange, any queue by name). The broker reads them as written; acktrail drops them whatever
 * their case, so that a header that some proxy or library folds still routes nowhere.
 */
export function isRoutingHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'cc' || lower === 'bcc';
}

/** Properties as stored (sealed) and published again; headers are kept apart. */
export function propertiesOf(msg: ConsumeMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(msg.properties))
    if (name !== 'headers' && value !== undefined) out[name] = value;
  return out;
}

/**
 * Properties a replay does not send again: the broker refuses a user-id other than the
 * publishing user's (acktrail's own), and cluster-id is deprecated.
 */
export const UNSENT_PROPERTIES = ['userId', 'clusterId'];

/** A parked message as an operator reads it: headers as JSON can show them, the body as text. */
export function shown(m: { properties: object; headers: Record<string, unknown>; body: Buffer }) {
  const encoding = (m.properties as { contentEncoding?: unknown }).contentEncoding;
  const text = m.body.toString('utf8');
  return {
    properties: m.properties,
    headers: printable(m.headers) as Record<string, unknown>,
    // UTF-8 that survives the round trip is shown as text; anything else as base64.
    body:
      encoding === undefined && Buffer.from(text, 'utf8').equals(m.body)
        ? { text }
        : { base64: m.body.toString('base64') },
  };
}

/** Byte strings as text, AMQP typed values ({'!': type, value}) as their value. */
function printable(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return value.map(printable);
  if (value !== null && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if ('!' in v && 'value' in v) return v.value;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, printable(x)]));
  }
  return value;
}
