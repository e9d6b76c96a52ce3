// The head of each queue with messages waiting, from the journeys: the oldest publish that
// reaches the queue by its bindings and has no delivery from it yet. Its event id is what the
// queue API and the dashboard link to; its publish time is the head age of queues the broker gives
// no head timestamp for (quorum and stream queues, and classic queues whose messages carry no
// timestamp property), served by the depth collector as acktrail_queue_head_age_seconds. Read in
// the background from the journey store (SQL: the same answer on every exporter replica), at most
// every rabbitmq.statsIntervalSeconds.
import { queueHead } from '../../journeys/store/index.js';
import type { Reader } from '../../journeys/store/index.js';
import type { Collector } from '../runner/collector.js';
import type { JourneyHead, QueueBoard, WaitingQueue } from './board.js';
import { queueKey } from './source/detailed.js';

/**
 * The search starts this much before the time the head cannot be older than (the queue seen
 * empty, the broker's head timestamp, the last head found): the broker's statistics are emitted
 * every 5 s by default, and the publishers' clocks differ.
 */
const MARGIN_MS = 60_000;
/** Queues looked up per run, those with the oldest bound first: a bound on one run's work. */
const MAX_QUEUES = 200;

export class QueueHeadsCollector implements Collector {
  readonly name = 'queue_heads';
  readonly timeoutMs: number;
  readonly minIntervalMs: number;

  constructor(
    private readonly pool: Reader,
    private readonly board: QueueBoard,
    private readonly retentionDays: number,
    intervalSeconds: number,
    timeoutSeconds: number,
  ) {
    this.minIntervalMs = intervalSeconds * 1000;
    this.timeoutMs = timeoutSeconds * 1000;
  }

  async collect(signal: AbortSignal): Promise<() => void> {
    const waiting = this.board
      .waiting()
      .sort((a, b) => (a.notBeforeMs ?? 0) - (b.notBeforeMs ?? 0));
    // Past the bound, a waiting queue keeps the head found for it before.
    const heads = new Map<string, JourneyHead>();
    for (const q of waiting.slice(MAX_QUEUES)) {
      const key = queueKey(q.vhost, q.queue);
      const before = this.board.journeyHead(key);
      if (before) heads.set(key, before);
    }
    for (const q of waiting.slice(0, MAX_QUEUES)) {
      if (signal.aborted) break;
      const head = await this.head(q);
      if (head) heads.set(queueKey(q.vhost, q.queue), head);
    }
    return () => {
      this.board.updateJourneyHeads(heads);
    };
  }

  private async head(q: WaitingQueue): Promise<JourneyHead | null> {
    const oldest = Date.now() - this.retentionDays * 86_400_000;
    // A queue with no bound at all (never seen empty, no timestamp, no head found yet) is searched
    // over the whole retention window, once: the head found then bounds the next searches.
    const since = new Date(Math.max(oldest, (q.notBeforeMs ?? oldest) - MARGIN_MS));
    return queueHead(this.pool, q.queue, q.routes, since);
  }
}
