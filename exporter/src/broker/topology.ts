// The broker's knowledge, as one immutable snapshot: each queue's facts and role, the node that
// leads it, the broker's head timestamps, the routes (bindings, exchange types, alternate
// exchanges) and which queues dead-letter into which. Built by one pure function of one refresh's
// answer and the configuration's role overrides (buildTopology); a refresh replaces it whole
// (refresh.ts swaps one reference), so no reader sees half an update. Everything that changes
// every scrape (depths, heads the journeys find, statuses) is the collectors' board, not this.
import { queueFacts, type BrokerAnswer, type QueueFacts } from './answer.js';
import { Policies } from './policies.js';
import { queueKey } from './queue.js';
import { inferRoles, roleFromName, type Role, type RoleOverride } from './roles.js';
import { ExchangeIndex, routesByQueue, type Routes } from './routes.js';
import { deadLetterSources, faultQueueSources } from './dead-lettering.js';
import { RoutingGraph, type Reach } from './reach.js';
import { Slices } from '../runtime/slices.js';

export type { QueueFacts, QueueLookup } from './answer.js';

export class Topology {
  /** The snapshot before the first refresh: knows no queue. */
  static readonly EMPTY = new Topology(0, null, new Map(), new Map(), new Map(), new Map(), {
    routes: new Map(),
    exchanges: new Set(),
    exchangeIndex: new ExchangeIndex([], []),
    graph: new RoutingGraph([], []),
    sources: new Map(),
    targets: new Map(),
    policySources: new Map(),
  });

  constructor(
    /** 0 before the first refresh; one more at each refresh. */
    readonly version: number,
    /** When the broker gave the answer it was built from (ms since the epoch); null: never. */
    readonly readAtMs: number | null,
    private readonly roles: ReadonlyMap<string, Role>,
    private readonly facts: ReadonlyMap<string, readonly QueueFacts[]>,
    private readonly leaders: ReadonlyMap<string, string>,
    /** Queue key -> the timestamp property (seconds) of its head message, where the broker says. */
    private readonly heads: ReadonlyMap<string, number>,
    private readonly links: {
      routes: ReadonlyMap<string, Routes>;
      /** The exchanges' names (any vhost). */
      exchanges: ReadonlySet<string>;
      /** Which queues a publish reaches, by exchange and key (the receiver's inferred queues). */
      exchangeIndex: ExchangeIndex;
      graph: RoutingGraph;
      /** Per queue key: the queues whose dead-lettering reaches it. */
      sources: ReadonlyMap<string, string[]>;
      /** The same, counting only dead-lettering set by a policy. */
      policySources: ReadonlyMap<string, string[]>;
      /** Per queue key: the queues its dead letters (or its framework's faults) go to. */
      targets: ReadonlyMap<string, string[]>;
    },
  ) {}

  /** Which queues a publish reaches, by exchange and key (the receiver's inferred queues). */
  get exchangeIndex(): ExchangeIndex {
    return this.links.exchangeIndex;
  }

  get loaded(): boolean {
    return this.version > 0;
  }

  /** Whether some queue of this name is known (in any vhost). */
  has(name: string): boolean {
    return this.facts.has(name);
  }

  /** Whether some exchange of this name is known (in any vhost; '' the default, always). */
  hasExchange(name: string): boolean {
    return name === '' || this.links.exchanges.has(name);
  }

  /** The names of the queues known (one entry per name, whatever its vhosts). */
  names(): string[] {
    return [...this.facts.keys()];
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

  /** The queue's type (classic, quorum, stream); null when not known. */
  type(vhost: string, queue: string): string | null {
    return this.facts.get(queue)?.find((f) => f.vhost === vhost)?.type ?? null;
  }

  /** `key`, the queue's queueKey, where the caller has it: each scrape asks for every queue. */
  role(vhost: string, queue: string, key = queueKey(vhost, queue)): Role {
    return this.roles.get(key) ?? roleFromName(queue);
  }

  /** The node that leads the queue, as last listed; null when not known. */
  leader(vhost: string, queue: string): string | null {
    return this.leaders.get(queueKey(vhost, queue)) ?? null;
  }

  /** The broker's head timestamp (seconds) of a queue, by its key; undefined: none given. */
  brokerHead(key: string): number | undefined {
    return this.heads.get(key);
  }

  /** The bindings that feed a queue, by its key; undefined: none known. */
  routesOf(key: string): Routes | undefined {
    return this.links.routes.get(key);
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
          (this.links.policySources.get(queueKey(vhost, name))?.length ?? 0) > 0,
      )
        ? [name]
        : [],
    );
  }

  /** The queues whose dead-lettering reaches this one; null before the first refresh. */
  deadLetterSources(vhost: string, queue: string): string[] | null {
    if (!this.loaded) return null;
    return this.links.sources.get(queueKey(vhost, queue)) ?? [];
  }

  /**
   * The queues this one's dead letters reach (by its dead-letter exchange and key, or
   * MassTransit's `<queue>_error`); null before the first refresh.
   */
  deadLetterTargets(vhost: string, queue: string): string[] | null {
    if (!this.loaded) return null;
    return this.links.targets.get(queueKey(vhost, queue)) ?? [];
  }

  /**
   * The queues of a vhost a publish to `exchange` with `routingKey` reaches, following
   * exchange-to-exchange bindings and alternate exchanges, or why that cannot be computed.
   */
  reach(vhost: string, exchange: string, routingKey: string): Reach {
    return this.links.graph.reach(vhost, exchange, routingKey);
  }
}

/** Where readers take the current snapshot from (the refresher; a test's fixed one). */
export interface TopologySource {
  readonly current: Topology;
}

/**
 * The snapshot of one answer: a function of it, the overrides and the version alone. It pauses for
 * the event loop as it goes (`slices`) and stops when their signal aborts: whatever the broker
 * holds, building it never holds the loop for more than a slice.
 */
export async function buildTopology(
  answer: BrokerAnswer,
  overrides: readonly RoleOverride[],
  version: number,
  readAtMs: number,
  slices: Slices = new Slices(),
): Promise<Topology> {
  const { queues, bindings, exchanges } = answer;
  const roles = await inferRoles(queues, bindings, exchanges, overrides, slices);
  const major = Number(answer.version?.split('.')[0] ?? 0);
  const policies = answer.policies ? new Policies(answer.policies) : null;
  const heads = new Map<string, number>();
  const leaders = new Map<string, string>();
  const all: (QueueFacts & { name: string })[] = [];
  for (const q of queues) {
    if (slices.due()) await slices.pause();
    const key = queueKey(q.vhost, q.name);
    if (typeof q.head_message_timestamp === 'number') heads.set(key, q.head_message_timestamp);
    const leader = q.leader ?? q.node;
    if (leader) leaders.set(key, leader);
    const facts = queueFacts(q, roles.get(key) ?? 'work', major, policies);
    if (facts) all.push({ name: q.name, ...facts });
  }
  const facts = new Map<string, QueueFacts[]>();
  for (const { name, ...f } of all) facts.set(name, [...(facts.get(name) ?? []), f]);
  const sources = await deadLetterSources(all, bindings, exchanges, slices);
  for (const [k, from] of faultQueueSources(queues))
    sources.set(k, [...(sources.get(k) ?? []), ...from]);
  return new Topology(version, readAtMs, roles, facts, leaders, heads, {
    routes: routesByQueue(bindings, exchanges),
    exchanges: new Set(exchanges.map((e) => e.name)),
    exchangeIndex: new ExchangeIndex(bindings, exchanges),
    graph: new RoutingGraph(bindings, exchanges),
    sources,
    targets: targetsOf(sources),
    policySources: await deadLetterSources(
      all,
      bindings,
      exchanges,
      slices,
      (f) => f.deadLetterByPolicy === true,
    ),
  });
}

/** The dead-letter relation the other way: per source queue key, the queues it reaches. */
function targetsOf(sources: ReadonlyMap<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [target, from] of sources) {
    const at = target.indexOf('\u0000');
    const vhost = target.slice(0, at);
    const name = target.slice(at + 1);
    for (const s of from) {
      const k = queueKey(vhost, s);
      out.set(k, [...(out.get(k) ?? []), name]);
    }
  }
  return out;
}
