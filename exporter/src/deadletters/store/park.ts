// Parking's one statement (the dead-letter store's hot path): a batch of messages taken from
// their queues inserted in one INSERT from json_to_recordset, a redelivered copy of a message
// parked before (same queue and content fingerprint) skipped. A row the store refused for its
// content is parked again set aside (setAside): never a reason for the batch to fail for ever.
import type { Database } from '../../db/checkout.js';
import type { Death, ReplayTarget } from '../model/message.js';

export interface ParkRow {
  vhost: string;
  queue: string;
  eventId: string | null;
  /** The trace context its headers carry, "<trace id>-<span id>": a journey key (message-keys.ts). */
  messageKey: string | null;
  reason: string;
  reasonSource: string;
  reasonGroup: string;
  exchange: string;
  routingKey: string;
  replay: ReplayTarget | null;
  deaths: Death[];
  bodyBytes: number;
  keyId: string | null;
  sealed: Buffer | null;
  fingerprint: string;
  /** The replay this message came back from, where its headers say. */
  replayedFrom: string | null;
  /** A redelivered message may already be parked (committed, then not acked): parked once. */
  redelivered: boolean;
  /**
   * Set when the store refused this row for its content: it is kept with its sealed part only
   * (state unstorable) and this text as its reason, so that it never blocks the others.
   */
  unstorable?: string;
  /** Too large to park, and published to this queue (deadLetters.setAsideQueue): listed, acked. */
  setAside?: string;
}

/**
 * A row the store refused, as it can always be kept: its sealed part, its queue and its event
 * id (printable ASCII, checked at parking), and in the clear only the error (scrubbed, ASCII).
 */
function setAside(r: ParkRow, error: string): ParkRow {
  const reason = error.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return {
    ...r,
    reason,
    reasonSource: 'acktrail',
    reasonGroup: 'unstorable',
    exchange: '',
    routingKey: '',
    replay: null,
    deaths: [],
    replayedFrom: null,
  };
}

/**
 * Parks messages in one statement (one transaction); resolves once they are committed, with
 * whether each row was new (a redelivered copy of a parked message, or a too-large one listed
 * before, is not: same queue and content fingerprint).
 */
export async function parkRows(
  pool: Database,
  retentionDays: number,
  rows: ParkRow[],
): Promise<boolean[]> {
  // The sealed parts travel as one binary parameter, each row naming its slice: base64 in the
  // JSON document took PostgreSQL twice as long to parse (docs/benchmarks-history.md, dead-letter parking).
  let offset = 1; // substring() counts from 1
  const sealed: Buffer[] = [];
  const records = rows.map((given) => {
    const r = given.unstorable === undefined ? given : setAside(given, given.unstorable);
    const record = {
      vhost: r.vhost,
      queue: r.queue,
      event_id: r.eventId,
      message_key: r.messageKey,
      state:
        given.unstorable !== undefined
          ? 'unstorable'
          : r.sealed
            ? 'parked'
            : r.setAside
              ? 'set_aside'
              : 'too_large',
      reason: r.reason,
      reason_source: r.reasonSource,
      reason_group: r.reasonGroup,
      exchange: r.exchange,
      routing_key: r.routingKey,
      replay_exchange: r.replay?.exchange ?? null,
      replay_routing_key: r.replay?.routingKey ?? null,
      replay_source: r.replay?.source ?? null,
      deaths: r.deaths,
      body_bytes: r.bodyBytes,
      key_id: r.keyId,
      sealed_at: r.sealed ? offset : null,
      sealed_bytes: r.sealed?.length ?? null,
      fingerprint: r.fingerprint,
      replayed_from: r.replayedFrom,
      dedupe: r.redelivered || !r.sealed || given.unstorable !== undefined,
    };
    if (r.sealed) {
      sealed.push(r.sealed);
      offset += r.sealed.length;
    }
    return record;
  });
  const res = await pool.query<{ fingerprint: string }>(
    `INSERT INTO dead_letters (vhost, queue, event_id, message_key, expires_at, state, reason,
       reason_source, reason_group, exchange, routing_key, replay_exchange, replay_routing_key,
       replay_source, deaths, body_bytes, key_id, sealed, fingerprint, replayed_from)
     SELECT r.vhost, r.queue, r.event_id, r.message_key, now() + make_interval(days => $2), r.state, r.reason,
            r.reason_source, r.reason_group, r.exchange, r.routing_key, r.replay_exchange,
            r.replay_routing_key, r.replay_source, r.deaths, r.body_bytes, r.key_id,
            CASE WHEN r.sealed_at IS NOT NULL THEN substring($3::bytea FROM r.sealed_at FOR r.sealed_bytes) END,
            r.fingerprint, r.replayed_from
       FROM json_to_recordset($1::json) AS r(vhost text, queue text, event_id text,
            message_key text, state text,
            reason text, reason_source text, reason_group text, exchange text, routing_key text,
            replay_exchange text, replay_routing_key text, replay_source text, deaths jsonb,
            body_bytes int, key_id text, sealed_at int, sealed_bytes int, fingerprint text,
            replayed_from text,
            dedupe boolean)
      WHERE NOT (r.dedupe AND EXISTS (SELECT 1 FROM dead_letters d
              WHERE d.vhost = r.vhost AND d.queue = r.queue AND d.fingerprint = r.fingerprint
                AND d.state IN ('parked', 'replaying', 'too_large', 'set_aside', 'unstorable')))
     RETURNING fingerprint`,
    [JSON.stringify(records), retentionDays, Buffer.concat(sealed)],
  );
  const fresh = new Set(res.rows.map((r) => r.fingerprint));
  return rows.map((r) => fresh.has(r.fingerprint));
}
