// Each work queue's status (broker/status.ts) from every observation the RabbitMQ collectors
// make: each scrape's depths (ready, consumers: STOP shows at the next scrape), each stats
// refresh's counters (acks too: what STALL and WARN need) and the ack counts of the queues that
// could be stalling, read one by one between refreshes (acks.ts). Serves
// acktrail_queue_status, written again only when some queue's status changes, and the board's
// statuses (with their rules).
import type { QueueBoard } from './board.js';
import { queueKey } from '../../broker/queue.js';
import {
  QUEUE_STATUSES,
  StatusWindows,
  type Evaluation,
  type Observation,
} from '../../broker/status.js';
import type { Piece } from '../../exposition/encoding.js';
import {
  CachedFamilies,
  labelsText,
  type ExpositionFormat,
  type FamilySpec,
  type SeriesLine,
} from '../../exposition/families.js';
import type { QueueCounters } from './source/counters.js';
import type { QueueDepth } from './source/detailed.js';
import { family } from '../../metrics/catalogue.js';

const STATUS: FamilySpec = family('acktrail_queue_status');

/** A work queue in scope as a stats refresh lists it. */
export interface WorkQueue {
  vhost: string;
  queue: string;
  /** null: the source has no counts for it (yet). */
  counted: QueueCounters | null;
}

export class QueueStatuses {
  private readonly windows: StatusWindows;
  /** The work queues in scope, by key, as the last refresh listed them. */
  private work = new Map<string, WorkQueue>();
  /** Why no queue can be judged, when no source gives counters. */
  private unknown: string | null = null;
  /** Whether the management API lists the queues' statistics (their ack counts, one by one). */
  private probing = false;
  private readonly statuses = new Map<string, Evaluation>();
  private readonly written = new CachedFamilies([[STATUS, () => this.samples()]]);

  constructor(
    windowMs: number,
    private readonly board: QueueBoard,
  ) {
    this.windows = new StatusWindows(windowMs);
  }

  /**
   * A stats refresh; `unknown`: why no queue has counts, when no source gives any; `probing`:
   * whether the management API gives a queue's ack count alone (suspects()).
   */
  refresh(
    queues: readonly WorkQueue[],
    unknown: string | null,
    now: number,
    probing = false,
  ): void {
    this.unknown = unknown;
    this.probing = probing;
    this.work = new Map(queues.map((q) => [queueKey(q.vhost, q.queue), q]));
    this.windows.retain(this.work);
    for (const [key, { counted: c }] of this.work)
      if (c)
        this.windows.observe(key, {
          atMs: now,
          ready: c.ready,
          consumers: c.consumers,
          acked: c.ack,
        });
    this.statuses.clear();
    for (const key of this.work.keys()) {
      const e = unknown ? { status: 'unknown' as const, rule: unknown } : this.windows.get(key);
      if (e) this.statuses.set(key, e);
    }
    this.written.invalidate();
    this.board.updateStatuses(this.statuses);
  }

  /**
   * A scrape's depths, by queue key: one more observation of each work queue the last refresh
   * listed (with counts or not yet).
   */
  observe(depths: ReadonlyMap<string, QueueDepth>, now: number): void {
    if (this.unknown !== null) return;
    let changed = false;
    for (const key of this.work.keys()) {
      const d = depths.get(key);
      if (!d) continue;
      const o = { atMs: now, ready: d.ready, consumers: d.consumers, acked: null };
      if (this.windows.observe(key, o)) changed = true;
      const e = this.windows.get(key);
      if (e) this.statuses.set(key, e);
    }
    if (changed) this.written.invalidate();
  }

  /**
   * The work queues that could be stalling (messages ready and consumers attached at the last
   * observation) whose ack count was not read alone for `everyMs`, the longest unread first, at
   * most `max`: what a read of single queues (collectors/rabbitmq/acks.ts) should look at, so
   * that STALL needs no stats refresh. None when the management API gives no statistics.
   */
  suspects(max: number, everyMs: number, now: number): WorkQueue[] {
    if (!this.probing || this.unknown !== null) return [];
    const due: [WorkQueue, number][] = [];
    for (const [key, q] of this.work) {
      const l = this.windows.latest(key);
      if (!l || l.last.ready === 0 || l.last.consumers === 0) continue;
      const read = l.probedAtMs ?? -Infinity;
      if (now - read >= everyMs) due.push([q, read]);
    }
    return due
      .sort((a, b) => a[1] - b[1])
      .slice(0, max)
      .map(([q]) => q);
  }

  /** Ack counts read one queue at a time (with its ready messages and consumers), by key. */
  observeAcks(read: ReadonlyMap<string, Omit<Observation, 'atMs' | 'probed'>>, now: number): void {
    let changed = false;
    for (const [key, o] of read) {
      if (!this.work.has(key)) continue;
      if (this.windows.observe(key, { ...o, atMs: now, probed: true })) changed = true;
      const e = this.windows.get(key);
      if (e) this.statuses.set(key, e);
    }
    if (changed) this.written.invalidate();
  }

  exposition(format: ExpositionFormat): Piece[] {
    return this.written.pieces(format);
  }

  private *samples(): Iterable<SeriesLine> {
    for (const [key, e] of this.statuses) {
      const q = this.work.get(key);
      if (!q) continue;
      const labels = (status: string) =>
        labelsText({ vhost: q.vhost, queue: q.queue, role: 'work', status });
      if (e.status === 'unknown') yield [labels('unknown'), 1];
      else for (const s of QUEUE_STATUSES) yield [labels(s), s === e.status ? 1 : 0];
    }
  }
}
