// The queue collector's families, one series per queue in scope: depths and consumers from each
// broker answer, the head age from the board (board.ts). Written straight to exposition bytes once per
// answer (exposition/families.ts), not kept in prom-client.
import type { QueueBoard } from './board.js';
import type { Piece } from '../../exposition/encoding.js';
import {
  CachedFamilies,
  labelsText,
  type ExpositionFormat,
  type FamilySpec,
  type SeriesLine,
} from '../../exposition/families.js';
import type { QueueDepth } from './source/detailed.js';
import { family } from '../../metrics/catalogue.js';

const FAMILIES = {
  ready: family('acktrail_queue_messages_ready'),
  unacked: family('acktrail_queue_messages_unacked'),
  consumers: family('acktrail_queue_consumers'),
  headAge: family('acktrail_queue_head_age_seconds'),
} as const satisfies Record<string, FamilySpec>;
type Field = keyof typeof FAMILIES;
const FIELDS = Object.keys(FAMILIES) as Field[];

/** A queue's series: its labels (written once) and the values of the last answer. */
interface QueueSeries {
  vhost: string;
  queue: string;
  role: string;
  labels: string;
  seenAtMs: number;
  ready: number;
  unacked: number;
  consumers: number;
  headAge: number;
}

export class QueueFamilies {
  /** By queue key (vhost and name). */
  private series = new Map<string, QueueSeries>();
  private readonly written = new CachedFamilies(
    FIELDS.map((field) => [FAMILIES[field], () => this.samples(field)]),
  );

  constructor(private readonly board: QueueBoard) {}

  /**
   * One answer: `depths` by queue key. A queue absent from it keeps its last values for `holdMs`
   * (a cluster's leader moving), then its series go and the board forgets it.
   */
  apply(
    depths: ReadonlyMap<string, QueueDepth>,
    inScope: (vhost: string, queue: string) => boolean,
    holdMs: number,
  ): void {
    // Keep the label text of queues seen before: with many queues, writing it again each
    // scrape would churn memory.
    const seen = new Map<string, QueueSeries>();
    const now = Date.now();
    for (const [key, q] of depths) {
      // The scope is the configuration's: a queue with a series was in scope, and still is.
      const had = this.series.get(key);
      if (!had && !inScope(q.vhost, q.queue)) continue;
      const role = this.board.role(q.vhost, q.queue, key);
      this.board.observeDepth(q, now, key);
      // A queue whose role changed is a new series; its old one goes.
      const s = had?.role === role ? had : newSeries(q, role);
      s.seenAtMs = now;
      s.ready = q.ready;
      s.unacked = q.unacked;
      s.consumers = q.consumers;
      s.headAge = this.board.headAge(q.vhost, q.queue, q.ready, now, key);
      seen.set(key, s);
    }
    for (const [key, s] of this.series) {
      if (seen.has(key)) continue;
      if (now - s.seenAtMs < holdMs) seen.set(key, s);
      else this.board.forget(s.vhost, s.queue);
    }
    this.series = seen;
    this.written.invalidate();
  }

  clear(): void {
    this.series.clear();
    this.written.invalidate();
  }

  exposition(format: ExpositionFormat): Piece[] {
    return this.written.pieces(format);
  }

  private *samples(field: Field): Iterable<SeriesLine> {
    for (const s of this.series.values()) yield [s.labels, s[field]];
  }
}

const newSeries = (q: QueueDepth, role: string): QueueSeries => ({
  vhost: q.vhost,
  queue: q.queue,
  role,
  labels: labelsText({ vhost: q.vhost, queue: q.queue, role }),
  seenAtMs: 0,
  ready: 0,
  unacked: 0,
  consumers: 0,
  headAge: 0,
});
