// A health status per work queue, without thresholds to tune: Burrow's consumer-lag evaluation
// (linkedin/Burrow, "Consumer Lag Evaluation Rules") applied to a queue over a window of time
// (rabbitmq.statusWindowSeconds, 240 s by default). Observations come from every scrape (ready
// messages, consumers), from every stats refresh (the same, with the broker's cumulative ack
// count) and from reads of single queues that could be stalling (their ack count, between
// refreshes: collectors/rabbitmq/acks.ts); the window keeps those of its last seconds, at most
// one per tenth of it, with the newest observation before it (its start) and the newest ack count
// of each kind before it. Read in this order:
//   STOP   no consumer while messages wait                       (the latest observation)
//   OK     the queue was empty at some point of the window       (it keeps up)
//   STALL  messages waited all along, consumers attached, and not one ack between two ack counts
//          of one kind at least a window apart
//   WARN   consumers acked, yet the backlog grew at every step of the window
//   OK     otherwise: consumers ack and the backlog does not keep growing
// STALL and WARN wait until the queue has been observed for a whole window. Each status comes with
// the rule that decided it, in words.

/** `unknown`: the broker gives no counters to judge by (collectors/rabbitmq/stats.ts says why). */
export type QueueStatus = 'ok' | 'warn' | 'stall' | 'stop' | 'unknown';
/** The statuses an evaluation gives, each a series of acktrail_queue_status per work queue. */
export const QUEUE_STATUSES: readonly QueueStatus[] = ['ok', 'warn', 'stall', 'stop'];

export interface Observation {
  atMs: number;
  ready: number;
  consumers: number;
  /** The broker's cumulative acks on the queue; null from a scrape, which does not read them. */
  acked: number | null;
  /**
   * The ack count came from a read of this queue alone (the management API's), not from a stats
   * refresh, whose source may count otherwise: ack counts are compared only with their own kind.
   */
  probed?: boolean;
}

/** The two kinds of ack count: a stats refresh's, a one-queue read's. */
const KINDS = [false, true] as const;
const kindOf = (o: Observation) => o.probed === true;

export interface Evaluation {
  status: QueueStatus;
  /** Why, in words: shown beside the status. */
  rule: string;
}

/** The window's default length: a stalled queue shows within five minutes of scrapes. */
export const WINDOW_SECONDS = 240;
/** At most this many observations per window (Burrow's default window is 10 offsets). */
const STEPS = 10;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const seconds = (ms: number) => Math.round(ms / 1000);

/**
 * `window`: a queue's observations, oldest first, as StatusWindows keeps them (an ack anchor may
 * come before the window's start); `windowMs`: the window's length.
 */
export function evaluate(window: readonly Observation[], windowMs: number): Evaluation {
  const last = window.at(-1);
  if (!last) return { status: 'ok', rule: 'not observed yet' };
  if (last.consumers === 0 && last.ready > 0)
    return {
      status: 'stop',
      rule: `no consumer while ${plural(last.ready, 'message')} wait${last.ready === 1 ? 's' : ''}`,
    };
  // The window proper: from the newest observation at or before its start.
  const start = last.atMs - windowMs;
  let from = 0;
  window.forEach((o, i) => {
    if (o.atMs <= start) from = i;
  });
  const depths = window.slice(from);
  if (depths.some((o) => o.ready === 0))
    return { status: 'ok', rule: 'the queue was empty within the window' };
  const observedMs = last.atMs - depths[0]!.atMs;
  if (observedMs < windowMs)
    return {
      status: 'ok',
      rule: `observed for ${seconds(observedMs)} s of the ${seconds(windowMs)} s window: too early to judge progress`,
    };
  // The oldest and newest ack counts of one kind: the kind whose two lie furthest apart.
  type Pair = readonly [Observation | undefined, Observation | undefined];
  const pairs = KINDS.map((kind): Pair => {
    const acks = window.filter((o) => o.acked !== null && kindOf(o) === kind);
    return [acks[0], acks.at(-1)];
  });
  const span = ([a, b]: Pair) => (a && b ? b.atMs - a.atMs : -1);
  const [a0, a1] = pairs.reduce((longest, p) => (span(p) > span(longest) ? p : longest));
  if (!a0 || !a1 || a1.atMs - a0.atMs < windowMs)
    return {
      status: 'ok',
      rule: `no two ack counts a window (${seconds(windowMs)} s) apart yet: too early to judge progress`,
    };
  if (a1.acked === a0.acked)
    return {
      status: 'stall',
      rule: `${plural(last.ready, 'message')} ready and ${plural(last.consumers, 'consumer')} attached, no ack in ${seconds(a1.atMs - a0.atMs)} s`,
    };
  const growing = depths.every((o, i) => i === 0 || o.ready > depths[i - 1]!.ready);
  if (growing && depths.length > 2)
    return {
      status: 'warn',
      rule: `the backlog grew at each of the last ${depths.length} observations (${depths[0]!.ready} to ${last.ready} ready) while consumers acked ${a1.acked! - a0.acked!}`,
    };
  return { status: 'ok', rule: 'consumers ack and the backlog does not keep growing' };
}

/** The windows of every work queue. */
export class StatusWindows {
  private readonly windows = new Map<string, Observation[]>();
  private readonly evaluations = new Map<string, Evaluation>();

  constructor(private readonly windowMs: number = WINDOW_SECONDS * 1000) {}

  /** Forgets the queues not in `keys` (deleted, no longer work queues). */
  retain(keys: { has(key: string): boolean }): void {
    for (const key of this.windows.keys())
      if (!keys.has(key)) {
        this.windows.delete(key);
        this.evaluations.delete(key);
      }
  }

  /** One more observation of a queue; returns whether its status changed. */
  observe(key: string, o: Observation): boolean {
    let w = this.windows.get(key) ?? [];
    // A queue deleted and declared again, or the broker's statistics reset: start over.
    const lastAck = w.findLast((x) => x.acked !== null && kindOf(x) === kindOf(o))?.acked;
    if (o.acked !== null && lastAck != null && o.acked < lastAck) w = [];
    w = this.append(w, o);
    this.windows.set(key, w);
    const before = this.evaluations.get(key)?.status;
    const e = evaluate(w, this.windowMs);
    this.evaluations.set(key, e);
    return e.status !== before;
  }

  get(key: string): Evaluation | undefined {
    return this.evaluations.get(key);
  }

  /** A queue's newest observation, and when its ack count was last read alone (or null). */
  latest(key: string): { last: Observation; probedAtMs: number | null } | undefined {
    const w = this.windows.get(key);
    const last = w?.at(-1);
    if (!last) return undefined;
    return { last, probedAtMs: w!.findLast((o) => o.acked !== null && kindOf(o))?.atMs ?? null };
  }

  /**
   * Appends `o`, keeping the others at least a tenth of the window apart (the newest, closer than
   * that to the one before, is replaced, unless it has an ack count and `o` has none of its
   * kind), and drops what is older than the window's start but the newest observation and the
   * newest ack count of each kind at or before it.
   */
  private append(w: Observation[], o: Observation): Observation[] {
    const newest = w.at(-1);
    const before = w.at(-2);
    if (
      newest &&
      before &&
      newest.atMs - before.atMs < this.windowMs / STEPS &&
      (newest.acked === null || (o.acked !== null && kindOf(o) === kindOf(newest)))
    )
      w[w.length - 1] = o;
    else w.push(o);
    const start = o.atMs - this.windowMs;
    const anchors = [-1, -1, -1]; // the newest observation, ack count of a refresh, of a probe
    w.forEach((x, i) => {
      if (x.atMs > start) return;
      anchors[0] = i;
      if (x.acked !== null) anchors[kindOf(x) ? 2 : 1] = i;
    });
    return anchors.every((a) => a <= 0)
      ? w
      : w.filter((x, i) => x.atMs > start || anchors.includes(i));
  }
}
