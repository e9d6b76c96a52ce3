// The ack counts of the work queues that could be stalling (messages ready and consumers attached
// at the last scrape), read one queue at a time from the management API between the stats
// refreshes, which with many queues come minutes apart. Each read is one observation of that
// queue for its status (broker/status.ts), so that STALL shows a window after a queue's acks stop
// rather than with the refresh after that. A one-queue read costs the broker little (its own
// statistics, about 2 kB), and only queues that could be stalling are read: none when every queue
// keeps up. RabbitMQ 3.10 refuses `columns` on a single queue, so the whole object is read.
// Nothing is read when the management API lists no statistics (RabbitMQ 4 as the official image
// ships it): there STALL waits for the stats refresh's counters.
import type { ValidatedConfig } from '../../config.js';
import type { Collector } from '../runner/collector.js';
import { SourceHttpError, type ManagementApi } from './source/http.js';
import { queueKey } from '../../broker/queue.js';
import type { QueueStatuses } from './queue-status.js';
import { countsOf, type StatsQueue } from './source/stats-queue.js';

/** Queues read per run at most: the longest unread first, the rest at the next run. */
const MAX_READS = 50;
/** Reads in flight at once. */
const CONCURRENCY = 4;

export class RabbitmqAcksCollector implements Collector {
  readonly name = 'rabbitmq_acks';
  readonly timeoutMs: number;
  /** A twentieth of the status window: at every scrape at Prometheus' default interval. */
  readonly minIntervalMs: number;

  constructor(
    config: ValidatedConfig,
    private readonly api: ManagementApi,
    private readonly statuses: QueueStatuses,
  ) {
    this.timeoutMs = config.rabbitmq.timeoutSeconds * 1000;
    this.minIntervalMs = (config.rabbitmq.statusWindowSeconds * 1000) / 20;
  }

  async collect(signal: AbortSignal): Promise<() => void> {
    const suspects = this.statuses.suspects(MAX_READS, this.minIntervalMs, Date.now());
    const read = new Map<string, { ready: number; consumers: number; acked: number }>();
    let next = 0;
    const reader = async () => {
      while (next < suspects.length) {
        const { vhost, queue } = suspects[next++]!;
        const path = `/api/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}`;
        try {
          // Read as the stats refresh reads a listed queue: no statistics (yet), no counts.
          const c = countsOf(
            await this.api.getJson<StatsQueue>(path, signal),
            'management',
            undefined,
          );
          if (c)
            read.set(queueKey(vhost, queue), {
              ready: c.ready,
              consumers: c.consumers,
              acked: c.ack,
            });
        } catch (err) {
          // Deleted since the last scrape: nothing to observe. Anything else fails the run.
          if (!(err instanceof SourceHttpError && err.status === 404)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, reader));
    const at = Date.now();
    return () => {
      this.statuses.observeAcks(read, at);
    };
  }
}
