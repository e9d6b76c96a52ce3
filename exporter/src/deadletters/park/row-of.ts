// A message taken from a dead-letter queue as the store parks it (ParkRow): what is kept in the
// clear is scrubbed as journey steps are (bounded, e-mail addresses masked, no NUL); the whole
// message, unmasked, is sealed under the dead-letter key for operators, unless it is larger than
// maxMessageBytes (then it stays in its queue, listed as too large).
import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';
import type { ConsumeMessage } from 'amqplib';
import { EVENT_BAGGAGE, EVENT_ID_SHAPE } from '@acktrail/conventions';
import type { ValidatedConfig } from '../../config.js';
import { scrub } from '../../journeys/model/scrub.js';
import {
  REPLAY_HEADERS,
  deathsOf,
  normaliseReason,
  propertiesOf,
  reasonOf,
  replayTargetOf,
} from '../model/message.js';
import type { ParkRow } from '../store/park.js';
import { keyId, seal } from '../model/seal.js';

/** W3C traceparent: version, trace id, parent span id, flags. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

const headerText = (v: unknown): string | null =>
  Buffer.isBuffer(v)
    ? v.toString('latin1').slice(0, 512)
    : typeof v === 'string'
      ? v.slice(0, 512)
      : null;

/**
 * The journey key of the message's trace context (journeys/spans/message-keys.ts): the span its
 * publisher propagated in the traceparent header, which the consumer spans name as their parent.
 */
export function messageKeyOf(headers: Record<string, unknown>): string | null {
  const m = TRACEPARENT.exec(headerText(headers.traceparent)?.trim() ?? '');
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return null;
  return `${m[1]}-${m[2]}`;
}

/** The event id the W3C baggage header carries (@acktrail/instrument puts it there). */
export function baggageEventId(headers: Record<string, unknown>): string | null {
  for (const entry of (headerText(headers.baggage) ?? '').split(',')) {
    const [name, value] = entry.split(';')[0]!.split('=');
    if (name?.trim() !== EVENT_BAGGAGE || value === undefined) continue;
    let id: string;
    try {
      id = decodeURIComponent(value.trim());
    } catch {
      return null;
    }
    return EVENT_ID_SHAPE.test(id) ? id : null;
  }
  return null;
}

export function parkRowOf(
  msg: ConsumeMessage,
  queue: string,
  vhost: string,
  key: Buffer,
  settings: ValidatedConfig['deadLetters'],
): { row: ParkRow; large: boolean } {
  const headers = (msg.properties.headers ?? {}) as Record<string, unknown>;
  const properties = propertiesOf(msg);
  const packed = serialize({ properties, headers, body: msg.content });
  // What is stored in the clear is scrubbed as journey steps are: bounded, e-mail addresses
  // masked, no NUL (the whole message, unmasked, is in the sealed part for operators).
  const deaths = deathsOf(headers).map((d) => ({
    ...d,
    queue: scrub(d.queue),
    reason: scrub(d.reason),
    exchange: scrub(d.exchange),
    routingKeys: d.routingKeys.map(scrub),
  }));
  const raw = reasonOf(headers, deaths, settings.reasonHeaders);
  const reason = scrub(raw.reason);
  const source = scrub(raw.source);
  const configured = settings.queues.find((q) => q.queue === queue)?.replayTo;
  const target = replayTargetOf(headers, deaths, configured);
  const messageId = msg.properties.messageId as unknown;
  const replayedFrom = headers[REPLAY_HEADERS.id];
  const large = packed.length > settings.maxMessageBytes;
  const row: ParkRow = {
    vhost: vhost,
    queue,
    eventId:
      typeof messageId === 'string' && EVENT_ID_SHAPE.test(messageId)
        ? messageId
        : baggageEventId(headers),
    messageKey: messageKeyOf(headers),
    reason,
    reasonSource: source,
    reasonGroup: normaliseReason(reason),
    exchange: scrub(msg.fields.exchange),
    routingKey: scrub(msg.fields.routingKey),
    replay: target && {
      ...target,
      exchange: scrub(target.exchange),
      routingKey: scrub(target.routingKey),
    },
    deaths,
    bodyBytes: msg.content.length,
    keyId: large ? null : keyId(key),
    sealed: large ? null : seal(key, packed, `${vhost}/${queue}`),
    fingerprint: createHash('sha256').update(queue).update(packed).digest('hex'),
    replayedFrom:
      typeof replayedFrom === 'string' && EVENT_ID_SHAPE.test(replayedFrom) ? replayedFrom : null,
    redelivered: msg.fields.redelivered,
  };
  return { row, large };
}
