// The one part that reads the broker's topology: /api/queues, /api/bindings, /api/exchanges and
// /api/overview, on its own schedule, built into a Topology (topology.ts) and published by one
// reference swap. The rule, the only one: a refresh every statsIntervalSeconds, but at most once
// per 100 times the last refresh took (the management API busy 1 % of the time at most) and at
// least every ten intervals (refresh-interval.ts); and early, when spans name a queue the snapshot
// lacks (learn()): at most once per max(1 s, 20 times the last refresh), one for however many ask,
// each name asking at most once between two scheduled refreshes, and each sender (the address a
// body came from) asking for at most EARLY_PER_SENDER of them between two scheduled refreshes: a
// sender naming made-up queues spends its own asks, not another's, and a queue it names past them
// is learnt at the next scheduled refresh. The stats collector reads the same answer's counters
// (answer()), so one read serves both.
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../log.js';
import type { Health, PartStatus } from '../runtime/health.js';
import type { Part } from '../runtime/parts.js';
import type { BrokerAnswer, StatsQueue } from './answer.js';
import type { BindingInfo, RoleOverride } from './roles.js';
import type { ExchangeInfo } from './routes.js';
import type { PolicyInfo } from './policies.js';
import { buildTopology, Topology, type TopologySource } from './topology.js';
import { refreshIntervalMs } from './refresh-interval.js';
import { Waits } from './waits.js';
import { Slices } from '../runtime/slices.js';
import { counter } from '../metrics/catalogue.js';

export const PART = 'broker_topology';
/** An early refresh comes at least this long after the last one began (ms)... */
const EARLY_MIN_GAP_MS = 1000;
/** ...and after 20 times as long as the last one took. */
const EARLY_FACTOR = 20;
/** Names asked about between two scheduled refreshes, at most (beyond it, no early refresh). */
const MAX_ASKED = 10_000;
/** New names one write may ask about: no sender fills MAX_ASKED for the others. */
const MAX_NAMES_PER_ASK = 1_000;
/** Early refreshes one sender may ask for between two scheduled refreshes. */
export const EARLY_PER_SENDER = 2;
/** Senders kept apart between two scheduled refreshes; past them, the rest share one budget. */
const MAX_SENDERS = 1_000;

/** What the refresher reads the broker with (the management API, any node of a cluster). */
export interface BrokerReads {
  getJson<T>(path: string, signal: AbortSignal): Promise<T>;
}

export interface RefreshOptions {
  vhosts: readonly string[];
  roles: readonly RoleOverride[];
  statsIntervalSeconds: number;
  timeoutSeconds: number;
}

/** The current topology's answer, with that topology's version and when it was read. */
export interface Reading {
  answer: BrokerAnswer;
  version: number;
  readAtMs: number;
}

const QUEUE_COLUMNS =
  'columns=vhost,name,type,node,leader,arguments,effective_policy_definition,head_message_timestamp,messages_ready,messages_unacknowledged,consumers,consumer_capacity,message_stats.publish,message_stats.deliver_get,message_stats.ack,message_stats.redeliver';
const BINDING_COLUMNS = 'columns=vhost,source,destination,destination_type,routing_key';
const EXCHANGE_COLUMNS = 'columns=vhost,name,type,arguments,policy';
const POLICY_COLUMNS = 'columns=vhost,name,pattern,apply-to,definition,priority';

/** An answer of 4xx: the broker refused, it did not fail. */
const refused = (err: unknown) => {
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
};

export class TopologyRefresh implements Part, TopologySource {
  readonly name = PART;
  private topology = Topology.EMPTY;
  /** The answer the current topology was built from. */
  private lastAnswer: BrokerAnswer | null = null;
  private failure: Error | null = null;
  private timer: NodeJS.Timeout | null = null;
  private dueAtMs = Infinity;
  private running = false;
  private stopped = false;
  private starts = 0;
  /** The number of the last refresh that ended (its start's). */
  private ended = 0;
  private lastStartMs = -Infinity;
  private lastRunMs = 0;
  /** Names asked about since the last scheduled refresh -> the refresh that answers them. */
  private readonly asked = new Map<string, number>();
  /** Early refreshes each sender asked for since the last scheduled refresh. */
  private readonly spent = new Map<string, number>();
  /** Whether the run due next was brought forward by learn(). */
  private dueEarly = false;
  private readonly refreshCount: Counter<'trigger'> | null;
  /** Waits for the first topology; and for a refresh begun after the wait began. */
  private readonly loads = new Waits();
  private readonly refreshes = new Waits();
  private readonly timeoutMs: number;

  constructor(
    private readonly options: RefreshOptions,
    private readonly broker: BrokerReads,
    private readonly reports: Health,
    private readonly log: Logger,
    registry?: Registry,
  ) {
    // Listing every queue is the slow call: it gets more time than a scrape.
    this.timeoutMs = Math.max(options.timeoutSeconds * 1000, 30_000);
    reports.register(PART);
    this.refreshCount = registry
      ? new Counter({ ...counter('acktrail_topology_refreshes_total'), registers: [registry] })
      : null;
    for (const trigger of ['scheduled', 'early']) this.refreshCount?.inc({ trigger }, 0);
  }

  /** The snapshot readers use now. */
  get current(): Topology {
    return this.topology;
  }

  /** The answer the current topology was built from, for its counters; throws the last failure. */
  answer(): Reading | null {
    if (this.failure) throw this.failure;
    const { version, readAtMs } = this.topology;
    return this.lastAnswer && readAtMs !== null
      ? { answer: this.lastAnswer, version, readAtMs }
      : null;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.loads.endAll();
    this.refreshes.endAll();
    return Promise.resolve();
  }

  health(): PartStatus {
    return this.reports.statusOf(PART);
  }

  /**
   * Waits for the first refresh to end (answered or failed), at most `ms` or until `signal`
   * aborts; at once after it.
   */
  untilLoaded(ms: number, signal?: AbortSignal): Promise<void> {
    return this.ended > 0 ? Promise.resolve() : this.loads.wait(ms, signal);
  }

  /**
   * Queues the spans name: one the snapshot lacks and nobody asked about since the last scheduled
   * refresh brings an early one forward; this waits, at most `ms`, for the refresh that answers
   * every name asked (a write naming a queue already asked about waits for the same one). A name
   * that refresh answered without it (no such queue) returns at once: the journey decides its
   * fate again when it is read.
   */
  learn(names: Iterable<string>, ms: number, sender = ''): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let need = 0;
    let fresh = 0;
    let allowed: boolean | null = null;
    for (const name of names) {
      if (this.topology.has(name)) continue;
      const asked = this.asked.get(name);
      if (asked !== undefined) {
        if (asked > this.ended) need = Math.max(need, asked);
      } else if (
        this.asked.size < MAX_ASKED &&
        fresh < MAX_NAMES_PER_ASK &&
        (allowed ??= this.spend(sender))
      ) {
        this.asked.set(name, this.starts + 1);
        need = this.starts + 1;
        fresh++;
      }
    }
    if (need === 0) return Promise.resolve();
    const waited = this.refreshes.wait(ms, undefined, need);
    if (fresh > 0 && !this.running) this.scheduleEarly();
    return waited;
  }

  /** Takes one of the sender's early refreshes for this interval; false when it has none left. */
  private spend(sender: string): boolean {
    const who = this.spent.has(sender) || this.spent.size < MAX_SENDERS ? sender : '\u0000others';
    const n = this.spent.get(who) ?? 0;
    if (n >= EARLY_PER_SENDER) return false;
    this.spent.set(who, n + 1);
    return true;
  }

  private schedule(inMs: number, early = false): void {
    if (this.stopped) return;
    const at = Date.now() + inMs;
    if (this.timer && at >= this.dueAtMs) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAtMs = at;
    this.dueEarly = early;
    this.timer = setTimeout(() => void this.run(), inMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = null;
    this.dueAtMs = Infinity;
    if (this.running || this.stopped) return;
    this.running = true;
    const started = Date.now();
    const index = ++this.starts;
    // A scheduled refresh answers every name asked before it, and gives senders their asks back;
    // waiters past it (names asked while it runs) are answered by the next one.
    const early = this.dueEarly;
    this.dueEarly = false;
    if (!early) {
      this.asked.clear();
      this.spent.clear();
    }
    this.refreshCount?.inc({ trigger: early ? 'early' : 'scheduled' });
    this.lastStartMs = started;
    try {
      // One bound for the read and the build: a broker too large to build in it keeps the last.
      const signal = AbortSignal.timeout(this.timeoutMs);
      const answer = await this.read(signal);
      const version = this.topology.version + 1;
      this.topology = await buildTopology(
        answer,
        this.options.roles,
        version,
        started,
        new Slices(signal),
      );
      this.lastAnswer = answer;
      this.failure = null;
      this.reports.up(PART);
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.reports.down(PART, err, 'cannot read the broker topology');
    } finally {
      this.lastRunMs = Date.now() - started;
      this.running = false;
      this.ended = index;
      // The first answer, or the first failure: either way there is nothing more to wait for.
      this.loads.endAll();
      this.refreshes.endUpTo(index);
      const base = this.options.statsIntervalSeconds * 1000;
      this.schedule(refreshIntervalMs(base, this.lastRunMs));
      // A name asked while this one ran: the next early refresh answers it.
      if (this.refreshes.size > 0) this.scheduleEarly();
    }
    this.log.debug({ ms: this.lastRunMs, version: this.topology.version }, 'topology refreshed');
  }

  /** The early refresh, as soon as the rule allows. */
  private scheduleEarly(): void {
    const gap = Math.max(EARLY_MIN_GAP_MS, EARLY_FACTOR * this.lastRunMs);
    this.schedule(Math.max(0, this.lastStartMs + gap - Date.now()), true);
  }

  private async read(signal: AbortSignal): Promise<BrokerAnswer> {
    const { vhosts } = this.options;
    const per = (path: string, cols: string) =>
      vhosts.length
        ? vhosts.map((v) => `${path}/${encodeURIComponent(v)}?${cols}`)
        : [`${path}?${cols}`];
    const get = <T>(paths: string[]) =>
      Promise.all(paths.map((p) => this.broker.getJson<T[]>(p, signal))).then((l) => l.flat());
    const [queues, bindings, exchanges, policies, overview] = await Promise.all([
      get<StatsQueue>(per('/api/queues', QUEUE_COLUMNS)),
      get<BindingInfo>(per('/api/bindings', BINDING_COLUMNS)),
      get<ExchangeInfo>(per('/api/exchanges', EXCHANGE_COLUMNS)),
      // Refused to this user (a 4xx): the policies are not known, the rest still is.
      get<PolicyInfo>(per('/api/policies', POLICY_COLUMNS)).catch((err: unknown) => {
        if (refused(err)) return null;
        throw err;
      }),
      this.broker.getJson<{ rabbitmq_version?: string; cluster_name?: string }>(
        '/api/overview?columns=rabbitmq_version,cluster_name',
        signal,
      ),
    ]);
    const version = overview.rabbitmq_version ?? null;
    return {
      queues,
      bindings,
      exchanges,
      policies,
      version,
      cluster: overview.cluster_name ?? null,
    };
  }
}
