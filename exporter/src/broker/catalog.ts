// What the slow stats refresh learns about the queues: each queue's role and the timestamp of
// the message at its head (for the fast depth collector), and what the queue does with a message
// its consumer rejects (for journeys: dead-lettered or discarded). Shared by the two rabbitmq
// collectors and the journey API.
import { queueKey, type QueueDepth } from './queue.js';
import type { Evaluation } from './status.js';
import { roleFromName, type BindingInfo, type Role } from './roles.js';
import { ExchangeIndex, routesByQueue, type ExchangeInfo, type Routes } from './routes.js';
import { deadLetterSources } from './dead-lettering.js';
import { RoutingGraph, type Reach } from './reach.js';

/** What the broker does with a message this queue's consumer rejects or nacks without requeue. */
export interface QueueFacts {
  vhost: string;
  /** classic, quorum or stream, as the broker names it. */
  type: string;
  role: Role;
  /** Its dead-letter exchange (argument, or policy), or null: a rejected message is dropped. */
  deadLetterExchange: string | null;
  /** The routing key dead-lettered messages get (argument, or policy); null: their own. */
  deadLetterRoutingKey: string | null;
  /** Deliveries a message may have before the broker dead-letters (or drops) it; quorum only. */
  deliveryLimit: number | null;
  /**
   * Its dead-letter exchange comes from a policy (an operator's), not from an argument of the
   * queue's declaration (any app user's).
   */
  deadLetterByPolicy?: boolean;
}

/** The facts of a queue by name, null where they are not known. */
export type QueueLookup = (queue: string) => QueueFacts | null;

export interface CatalogUpdate {
  roles: Map<string, Role>;
  /** Queue key -> timestamp property (seconds) of its head message, where the broker says. */
  heads?: Map<string, number>;
  facts?: (QueueFacts & { name: string })[];
  /** Queue key -> the node that leads it (a classic queue's node, a quorum queue's leader). */
  leaders?: Map<string, string>;
  /** The bindings and exchange types that say which publishes reach which queue. */
  routes?: { bindings: readonly BindingInfo[]; exchanges: readonly ExchangeInfo[] };
}

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

export class QueueCatalog {
  private roles = new Map<string, Role>();
  private heads = new Map<string, number>();
  private journeyHeads = new Map<string, JourneyHead>();
  private statuses = new Map<string, Evaluation>();
  private leaders = new Map<string, string>();
  private routes = new Map<string, Routes>();
  private exchanges = new ExchangeIndex(this.routes);
  private graph = new RoutingGraph([], []);
  /** Per queue key: the last depths read and when it was last seen with nothing ready. */
  private readonly depths = new Map<string, { depth: QueueDepth; emptyAtMs: number | null }>();
  private facts = new Map<string, QueueFacts[]>();
  /** Per queue key: the queues whose dead-lettering reaches it. */
  private sources = new Map<string, string[]>();
  /** The same, counting only dead-lettering set by a policy. */
  private policySources = new Map<string, string[]>();
  private isLoaded = false;
  /** The waits for the first refresh still running (each one's end). */
  private readonly waits = new Set<() => void>();

  /**
   * Waits for the first refresh, at most `ms` or until `signal` aborts; at once when it is done.
   * It leaves nothing behind: a scrape's wait that outlived the scrape kept what the scrape read
   * alive with it (at 10,000 queues, about 1.6 MB per scrape until its timer ran out), and a
   * reaction on a promise that never settles (a broker away for days) would stay for good.
   */
  async untilLoaded(ms: number, signal: AbortSignal): Promise<void> {
    if (this.isLoaded || signal.aborted) return;
    let stop!: () => void;
    const given = new Promise<void>((resolve) => (stop = resolve));
    const timer = setTimeout(stop, ms);
    signal.addEventListener('abort', stop, { once: true });
    this.waits.add(stop);
    try {
      await given;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      this.waits.delete(stop);
    }
  }

  update(u: CatalogUpdate): void {
    this.roles = u.roles;
    this.heads = u.heads ?? new Map<string, number>();
    this.leaders = u.leaders ?? new Map<string, string>();
    if (u.routes) {
      this.routes = routesByQueue(u.routes.bindings, u.routes.exchanges);
      this.exchanges = new ExchangeIndex(this.routes);
      this.graph = new RoutingGraph(u.routes.bindings, u.routes.exchanges);
    }
    const byName = new Map<string, QueueFacts[]>();
    for (const { name, ...f } of u.facts ?? []) byName.set(name, [...(byName.get(name) ?? []), f]);
    this.facts = byName;
    this.sources = deadLetterSources(u.facts ?? [], this.routes);
    this.policySources = deadLetterSources(
      u.facts ?? [],
      this.routes,
      (f) => f.deadLetterByPolicy === true,
    );
    this.isLoaded = true;
    for (const stop of this.waits) stop();
  }

  /**
   * The oldest message waiting in each queue, as the journeys show it (collectors/rabbitmq/heads.ts);
   * replaces the last.
   */
  updateJourneyHeads(heads: Map<string, JourneyHead>): void {
    this.journeyHeads = heads;
  }

  /** The head the journeys found for a queue (by its key) the last time; undefined: none. */
  journeyHead(key: string): JourneyHead | undefined {
    return this.journeyHeads.get(key);
  }

  /** Each work queue's health, from the stats refresh (status.ts); replaces the last. */
  updateStatuses(statuses: Map<string, Evaluation>): void {
    this.statuses = statuses;
  }

  /** The node that leads the queue, as last listed; null when not known. */
  leader(vhost: string, queue: string): string | null {
    return this.leaders.get(queueKey(vhost, queue)) ?? null;
  }

  /** The depth collector's reading of a queue in scope, every scrape (`key`: its queueKey). */
  observeDepth(depth: QueueDepth, nowMs: number, key = queueKey(depth.vhost, depth.queue)): void {
    const seen = this.depths.get(key);
    const emptyAtMs = depth.ready === 0 ? nowMs : (seen?.emptyAtMs ?? null);
    this.depths.set(key, { depth, emptyAtMs });
  }

  /** A queue no longer read (deleted, out of scope). */
  forget(vhost: string, queue: string): void {
    this.depths.delete(queueKey(vhost, queue));
  }

  /** The queues with messages ready, with the routes that feed them (for their journey heads). */
  waiting(): WaitingQueue[] {
    const out: WaitingQueue[] = [];
    for (const [key, { depth, emptyAtMs }] of this.depths) {
      const routes = this.routes.get(key);
      if (depth.ready === 0 || !routes) continue;
      const bounds = [
        emptyAtMs,
        (this.heads.get(key) ?? NaN) * 1000,
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
    return [...this.depths].map(([key, { depth: d }]) => ({
      vhost: d.vhost,
      queue: d.queue,
      role: this.role(d.vhost, d.queue),
      type: this.facts.get(d.queue)?.find((f) => f.vhost === d.vhost)?.type ?? null,
      ready: d.ready,
      unacked: d.unacked,
      consumers: d.consumers,
      headAgeSeconds: this.headAge(d.vhost, d.queue, d.ready, nowMs),
      headEventId: d.ready > 0 ? (this.journeyHeads.get(key)?.eventId ?? null) : null,
      status: this.statuses.get(key) ?? null,
    }));
  }

  /** The names of the queues in scope (one entry per name, whatever its vhosts). */
  names(): string[] {
    return [...this.facts.keys()];
  }

  /**
   * The dead-letter queues of one vhost (dead-letter parking's allDeadLetterQueues): queues that
   * some queue dead-letters into by a policy and that dead-letter nowhere themselves (a target
   * that does is a retry queue). Never by name: a work queue called `email.errors` is not one;
   * never by a queue's own arguments: an app user who declares a queue dead-lettering to the
   * default exchange with the key `celery` must not make acktrail consume Celery's tasks.
   */
  deadLetterQueues(vhost: string): string[] {
    return [...this.facts].flatMap(([name, all]) =>
      all.some(
        (f) =>
          f.vhost === vhost &&
          f.deadLetterExchange === null &&
          (this.policySources.get(queueKey(vhost, name))?.length ?? 0) > 0,
      )
        ? [name]
        : [],
    );
  }

  /** The queues whose dead-lettering reaches this one; null before the first refresh. */
  deadLetterSources(vhost: string, queue: string): string[] | null {
    if (this.facts.size === 0) return null;
    return this.sources.get(queueKey(vhost, queue)) ?? [];
  }

  /** Which queues a publish reaches, by exchange and key (the receiver's inferred queues). */
  get exchangeIndex(): ExchangeIndex {
    return this.exchanges;
  }

  /**
   * The queues of a vhost a publish to `exchange` with `routingKey` reaches, following
   * exchange-to-exchange bindings and alternate exchanges, or why that cannot be computed.
   */
  reach(vhost: string, exchange: string, routingKey: string): Reach {
    return this.graph.reach(vhost, exchange, routingKey);
  }

  /**
   * The facts of the queue named so (spans name a queue, not its vhost): known when one queue has
   * the name, or when every queue of that name would do the same with a rejected message.
   */
  queue(name: string): QueueFacts | null {
    const all = this.facts.get(name) ?? [];
    const [one] = all;
    if (!one) return null;
    const same = all.every(
      (f) =>
        f.deadLetterExchange === one.deadLetterExchange && f.deliveryLimit === one.deliveryLimit,
    );
    return same ? one : null;
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
    const ts = this.heads.get(key) ?? this.journeyHeads.get(key)?.publishedS;
    return ready > 0 && ts !== undefined ? Math.max(0, nowMs / 1000 - ts) : 0;
  }

  /** `key`, the queue's queueKey, where the caller has it: each scrape asks for every queue. */
  role(vhost: string, queue: string, key = queueKey(vhost, queue)): Role {
    return this.roles.get(key) ?? roleFromName(queue);
  }
}
