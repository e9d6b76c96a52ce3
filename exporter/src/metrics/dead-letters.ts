// Dead-letter parking's metrics: parked, waiting, set aside, replayed and discarded messages.
// docs/metrics.md, "Dead letters", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

export const DEAD_LETTER_METRICS = [
  {
    name: 'acktrail_dead_letters_parked_total',
    type: 'counter',
    help: 'Dead letters taken from their queue into the store, by queue and masked reason.',
    labels: ['queue', 'reason'],
    doc: 'messages taken from a dead-letter queue into the store; `reason` is the masked reason group (at most 50, then `other`)',
  },
  {
    name: 'acktrail_dead_letters_waiting',
    type: 'gauge',
    help: 'Dead letters parked now (neither replayed nor discarded), by queue.',
    labels: ['queue'],
    doc: 'parked now: neither replayed nor discarded (from the store, every 10 s)',
  },
  {
    name: 'acktrail_dead_letters_oldest_parked_age_seconds',
    type: 'gauge',
    help: 'Age of the oldest dead letter parked now, by queue; 0 when none.',
    labels: ['queue'],
    doc: 'age of the oldest parked message; 0 when none',
  },
  {
    name: 'acktrail_dead_letters_set_aside_total',
    type: 'counter',
    help: 'Dead letters too large to park, published to deadLetters.setAsideQueue and acked, by queue.',
    labels: ['queue'],
    doc: 'messages over `deadLetters.maxMessageBytes` published to `deadLetters.setAsideQueue` (confirmed), then acked and listed as `set_aside`',
  },
  {
    name: 'acktrail_dead_letters_too_large',
    type: 'gauge',
    help: 'Dead letters too large to park, held unacknowledged in their queue (no setAsideQueue, or it refused them), by queue.',
    labels: ['queue'],
    doc: 'messages over `deadLetters.maxMessageBytes` held unacknowledged in their queue: no set-aside queue, or the broker refused it',
  },
  {
    name: 'acktrail_dead_letter_replays_total',
    type: 'counter',
    help: 'Replays of parked dead letters, by queue and outcome (confirmed, unroutable, nacked, refused: not an allowed target, error).',
    labels: ['queue', 'outcome'],
    doc: 'replays: `confirmed` (the broker took it), `unroutable` (returned), `nacked`, `refused` (no allowed target, or none known), `error` (a sealing or store error)',
  },
  {
    name: 'acktrail_dead_letter_discards_total',
    type: 'counter',
    help: 'Parked dead letters discarded by an operator, by queue.',
    labels: ['queue'],
    doc: 'parked messages discarded by an operator',
  },
  {
    name: 'acktrail_dead_letters_unstorable_total',
    type: 'counter',
    help: 'Dead letters the store refused for their content, set aside (state unstorable) so that the others park, by queue.',
    labels: ['queue'],
    doc: 'messages the store refused for their content, set aside (state `unstorable`) so that the others park',
  },
] as const satisfies readonly MetricSpec[];
