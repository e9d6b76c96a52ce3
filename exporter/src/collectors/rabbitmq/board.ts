// What changes every scrape, as the RabbitMQ collectors read it: each queue's depths and when it
// was last seen empty (queue-families.ts), the head the journeys found (heads.ts) and each work
// queue's status (queue-status.ts). The queue API reads it, joined with the broker's topology
// (roles, types, routes, head timestamps), which the collectors only read.
import { queueKey, type QueueDepth } from '../../broker/queue.js';
import type { Evaluation } from '../../broker/status.js';
import type { Role } from '../../broker/roles.js';
import type { Routes } from '../../broker/routes.js';
import type { TopologySource } from '../../broker/topology.js';

/** A queue with messages waiting, whose oldest message the journeys can name. */
export interface WaitingQueue {
  vhost: string;
  queue: string;
  routes: Routes;
  /**
   * A time (ms) its head cannot be older than: the latest of when it was last seen empty, the
   * broker's head timestamp, and the head the journeys found last time (a head only moves on).
   * null: none known.
   */
  notBeforeMs: number | null;
}

/** The head of a queue as the journeys show it: the oldest publish not delivered from it yet. */
export interface JourneyHead {
  /** Seconds since the epoch. */
  publishedS: number;
  eventId: string;
}

/** One queue as the queue API serves it (api/queues.ts). */
export interface QueueSummary {
  vhost: string;
  queue: string;
  role: Role;
  type: string | null;
  ready: number;
  unacked: number;
  consumers: number;
  headAgeSeconds: number;
  /** The oldest waiting message's event, where the journeys know it. */
  headEventId: string | null;
  /** The queue's health (work queues; null for the others or before the first evaluation). */
  status: Evaluation | null;
}

export class QueueBoard {
  private journeyHeads = new Map<string, JourneyHead>();
  private statuses = new Map<string, Evaluation>();
  /** Per queue key: the last depths read and when it was last seen with nothing ready. */
  private readonly depths = new Map<string, { depth: QueueDepth; emptyAtMs: number | null }>();

  constructor(private readonly topology: TopologySource) {}

  /**
   * The oldest message waiting in each queue, as the journeys show it (heads.ts); replaces the
   * last.
   */
  updateJourneyHeads(heads: Map<string, JourneyHead>): void {
    this.journeyHeads = heads;
  }

  /** The head the journeys found for a queue (by its key) the last time; undefined: none. */
  journeyHead(key: string): JourneyHead | undefined {
    return this.journeyHeads.get(key);
  }

  /** Each work queue's health (queue-status.ts); replaces the last. */
  updateStatuses(statuses: Map<string, Evaluation>): void {
    this.statuses = statuses;
  }

  /** The depth collector's reading of a queue in scope, every scrape (`key`: its queueKey). */
  observeDepth(depth: QueueDepth, nowMs: number, key = queueKey(depth.vhost, depth.queue)): void {
    const seen = this.depths.get(key);
    const emptyAtMs = depth.ready === 0 ? nowMs : (seen?.emptyAtMs ?? null);
    this.depths.set(key, { depth, emptyAtMs });
  }

  /** The queue's role, from the broker's topology (`key`: its queueKey, where the caller has it). */
  role(vhost: string, queue: string, key = queueKey(vhost, queue)): Role {
    return this.topology.current.role(vhost, queue, key);
  }

  /** A queue no longer read (deleted, out of scope). */
  forget(vhost: string, queue: string): void {
    this.depths.delete(queueKey(vhost, queue));
  }

  /** The queues with messages ready, with the routes that feed them (for their journey heads). */
  waiting(): WaitingQueue[] {
    const topology = this.topology.current;
    const out: WaitingQueue[] = [];
    for (const [key, { depth, emptyAtMs }] of this.depths) {
      const routes = topology.routesOf(key);
      if (depth.ready === 0 || !routes) continue;
      const bounds = [
        emptyAtMs,
        (topology.brokerHead(key) ?? NaN) * 1000,
        (this.journeyHeads.get(key)?.publishedS ?? NaN) * 1000,
      ].filter((t): t is number => t !== null && Number.isFinite(t));
      out.push({
        vhost: depth.vhost,
        queue: depth.queue,
        routes,
        notBeforeMs: bounds.length ? Math.max(...bounds) : null,
      });
    }
    return out;
  }

  /** Every queue read in the last scrape, with its health and head. */
  summary(nowMs: number): QueueSummary[] {
    const topology = this.topology.current;
    return [...this.depths].map(([key, { depth: d }]) => ({
      vhost: d.vhost,
      queue: d.queue,
      role: topology.role(d.vhost, d.queue, key),
      type: topology.type(d.vhost, d.queue),
      ready: d.ready,
      unacked: d.unacked,
      consumers: d.consumers,
      headAgeSeconds: this.headAge(d.vhost, d.queue, d.ready, nowMs, key),
      headEventId: d.ready > 0 ? (this.journeyHeads.get(key)?.eventId ?? null) : null,
      status: this.statuses.get(key) ?? null,
    }));
  }

  /**
   * Seconds since the head message was published, 0 for an empty queue. From the broker's head
   * timestamp where it gives one (classic queues whose messages carry a timestamp), otherwise
   * from the journeys (published, not yet delivered: any queue type); 0 when neither knows. As
   * fresh as the last refresh: after the head moves on, the age stays high until the next one.
   */
  headAge(
    vhost: string,
    queue: string,
    ready: number,
    nowMs: number,
    key = queueKey(vhost, queue),
  ): number {
    const ts = this.topology.current.brokerHead(key) ?? this.journeyHeads.get(key)?.publishedS;
    return ready > 0 && ts !== undefined ? Math.max(0, nowMs / 1000 - ts) : 0;
  }
}
