// A parked dead letter as the store's rows hold it and as the API shows it: its states, its
// columns and the mapping between the two (store.ts runs the SQL).
import type { Death, ReplayTarget } from './message.js';

export const STATES = [
  'parked',
  'replaying',
  'replayed',
  'discarded',
  'too_large',
  'set_aside',
  'unstorable',
] as const;
export type State = (typeof STATES)[number];

export interface DeadLetter {
  id: string;
  vhost: string;
  queue: string;
  eventId: string | null;
  /** The trace context its headers carried: the journey key of spans without a message id. */
  messageKey: string | null;
  parkedAt: string;
  expiresAt: string;
  state: State;
  stateAt: string;
  reason: string;
  reasonSource: string;
  reasonGroup: string;
  exchange: string;
  routingKey: string;
  replayTo: ReplayTarget | null;
  deaths: Death[];
  bodyBytes: number;
  lastError: string | null;
  replays: number;
}

export interface Group {
  queue: string;
  reasonGroup: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  examples: string[];
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  /** true: a trusted proxy named the actor; false: the name was typed (asserted). */
  actorVerified: boolean;
  action: string;
  deadLetterId: string | null;
  eventId: string | null;
  queue: string | null;
  outcome: string;
  detail: string | null;
}

export const COLUMNS = `id::text, vhost, queue, event_id, message_key, parked_at, expires_at, state, state_at, reason,
  reason_source, reason_group, exchange, routing_key, replay_exchange, replay_routing_key,
  replay_source, deaths, body_bytes, last_error, replays`;

export interface Row {
  id: string;
  vhost: string;
  queue: string;
  event_id: string | null;
  message_key: string | null;
  parked_at: Date;
  expires_at: Date;
  state: State;
  state_at: Date;
  reason: string;
  reason_source: string;
  reason_group: string;
  exchange: string;
  routing_key: string;
  replay_exchange: string | null;
  replay_routing_key: string | null;
  replay_source: ReplayTarget['source'] | null;
  deaths: Death[];
  body_bytes: number;
  last_error: string | null;
  replays: number;
}

export const toDeadLetter = (r: Row): DeadLetter => ({
  id: r.id,
  vhost: r.vhost,
  queue: r.queue,
  eventId: r.event_id,
  messageKey: r.message_key,
  parkedAt: r.parked_at.toISOString(),
  expiresAt: r.expires_at.toISOString(),
  state: r.state,
  stateAt: r.state_at.toISOString(),
  reason: r.reason,
  reasonSource: r.reason_source,
  reasonGroup: r.reason_group,
  exchange: r.exchange,
  routingKey: r.routing_key,
  replayTo:
    r.replay_exchange !== null && r.replay_routing_key !== null
      ? {
          exchange: r.replay_exchange,
          routingKey: r.replay_routing_key,
          source: r.replay_source ?? 'headers',
        }
      : null,
  deaths: r.deaths,
  bodyBytes: r.body_bytes,
  lastError: r.last_error,
  replays: r.replays,
});
