// A health status per work queue, without thresholds to tune: Burrow's consumer-lag evaluation
// (linkedin/Burrow, "Consumer Lag Evaluation Rules") applied to a queue. A sliding window of the
// last WINDOW observations (one per stats refresh: ready messages, consumers, and the broker's
// cumulative ack count), read in this order:
//   STOP   no consumer while messages wait                       (the latest observation)
//   OK     the queue was empty at some point of the window       (it keeps up)
//   STALL  messages waited all along, consumers attached, and not one ack in the window
//   WARN   consumers acked, yet the backlog grew at every step of the window
//   OK     otherwise: consumers ack and the backlog does not keep growing
// Each status comes with the rule that decided it, in words.

/** `unknown`: the broker gives no counters to judge by (rabbitmq-stats.ts says why). */
export type QueueStatus = 'ok' | 'warn' | 'stall' | 'stop' | 'unknown';
/** The statuses an evaluation gives, each a series of acktrail_queue_status per work queue. */
export const QUEUE_STATUSES: readonly QueueStatus[] = ['ok', 'warn', 'stall', 'stop'];

export interface Observation {
  atMs: number;
  ready: number;
  consumers: number;
  /** The broker's cumulative acks on the queue (message_stats.ack). */
  acked: number;
}

export interface Evaluation {
  status: QueueStatus;
  /** Why, in words: shown beside the status. */
  rule: string;
}

/** Observations in the window: Burrow's default. */
export const WINDOW = 10;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const span = (w: readonly Observation[]) => Math.round((w.at(-1)!.atMs - w[0]!.atMs) / 1000);

export function evaluate(window: readonly Observation[]): Evaluation {
  const last = window.at(-1);
  if (!last) return { status: 'ok', rule: 'not observed yet' };
  if (last.consumers === 0 && last.ready > 0)
    return {
      status: 'stop',
      rule: `no consumer while ${plural(last.ready, 'message')} wait${last.ready === 1 ? 's' : ''}`,
    };
  if (window.some((o) => o.ready === 0))
    return { status: 'ok', rule: 'the queue was empty within the window' };
  if (window.length < 2)
    return { status: 'ok', rule: 'one observation so far: too early to judge progress' };
  const first = window[0]!;
  if (last.acked === first.acked)
    return {
      status: 'stall',
      rule: `${plural(last.ready, 'message')} ready and ${plural(last.consumers, 'consumer')} attached, no ack in ${span(window)} s (${window.length} observations)`,
    };
  const growing = window.every((o, i) => i === 0 || o.ready > window[i - 1]!.ready);
  if (growing)
    return {
      status: 'warn',
      rule: `the backlog grew at each of the last ${window.length} observations (${first.ready} to ${last.ready} ready) while consumers acked ${last.acked - first.acked}`,
    };
  return { status: 'ok', rule: 'consumers ack and the backlog does not keep growing' };
}

/** The windows of every queue, fed one observation per queue per stats refresh. */
export class StatusWindows {
  private readonly windows = new Map<string, Observation[]>();
  private readonly evaluations = new Map<string, Evaluation>();

  /** `observations`: queue key -> this refresh's observation; queues absent are forgotten. */
  record(observations: Map<string, Observation>): void {
    for (const key of this.windows.keys())
      if (!observations.has(key)) {
        this.windows.delete(key);
        this.evaluations.delete(key);
      }
    for (const [key, o] of observations) {
      let w = this.windows.get(key) ?? [];
      // A queue deleted and declared again, or the broker's statistics reset: start over.
      if (w.length && o.acked < w.at(-1)!.acked) w = [];
      w.push(o);
      if (w.length > WINDOW) w.shift();
      this.windows.set(key, w);
      this.evaluations.set(key, evaluate(w));
    }
  }

  get(key: string): Evaluation | undefined {
    return this.evaluations.get(key);
  }
}
