// Parking's pipeline: messages taken from the dead-letter queues are committed to the store in
// batches, then acked. Two batches commit at once, each at most half the prefetch, so that a
// queue's next batch arrives while one commits, and each committed run of a channel is acked with
// one `multiple` ack (acks.ts). While the store is down, messages stay unacked and the batches
// are retried with backoff (batching/batch-writer.ts); a batch the store refuses for its content
// is split until the message at fault is found, which is set aside as unstorable.
import type { Channel, ConsumeMessage } from 'amqplib';
import { backoffMs } from '../../backoff.js';
import { BatchWriter } from '../../batching/batch-writer.js';
import type { Health } from '../../runtime/health.js';
import { errorMessage, type Logger } from '../../log.js';
import { AckWindow } from './acks.js';
import type { DeadLetterMetrics } from '../model/metrics.js';
import type { DeadLetterStore, ParkRow } from '../store/store.js';

/** Park transactions in flight at once. */
const IN_FLIGHT = 2;

interface Held {
  ch: Channel;
  msg: ConsumeMessage;
  row: ParkRow;
}

/** A delivery after its commit: whether its row is new (a redelivery's is not). */
interface Parked {
  held: Held;
  fresh: boolean;
}

export class Parker {
  /** Each open consuming channel and its deliveries not acked yet. */
  private readonly live = new Map<Channel, AckWindow>();
  /**
   * Commits what is pending, then acks it (never a too-large one); retries while the store is
   * down. A batch takes at most half the prefetch, so that a queue's next batch can arrive while
   * this one commits.
   */
  private readonly batches: BatchWriter<Held, Parked[]>;

  constructor(
    prefetch: number,
    private readonly store: DeadLetterStore,
    private readonly metrics: DeadLetterMetrics,
    health: Health,
    part: string,
    private readonly log: Logger,
    /** Aborted when the exporter stops: a backoff ends at once. */
    stop: AbortSignal,
  ) {
    this.batches = new BatchWriter<Held, Parked[]>({
      maxItems: Math.max(1, Math.ceil(prefetch / 2)),
      delayMs: 0,
      concurrency: IN_FLIGHT,
      write: (batch) => this.parkSplitting(batch),
      committed: (_batch, parked) => {
        this.settle(parked);
      },
      failed: (err) => {
        health.down(part, err, 'cannot park dead letters (store down?); they stay queued');
        return 'retry';
      },
      recovered: () => {
        health.up(part);
      },
      backoffMs: (failures) => backoffMs(failures),
      signal: stop,
    });
  }

  /** A consuming channel opened (with this prefetch). */
  opened(ch: Channel): void {
    this.live.set(ch, new AckWindow(ch));
  }

  /** A channel closed: what it delivered is redelivered by the broker, and parked once. */
  channelClosed(ch: Channel): void {
    this.live.delete(ch);
  }

  /** The connection is gone: every channel with it. */
  lost(): void {
    this.live.clear();
  }

  /** Stops taking batches (the exporter stops). */
  close(): void {
    this.batches.close();
  }

  /** A delivery to park. */
  received(ch: Channel, msg: ConsumeMessage, row: ParkRow): void {
    this.live.get(ch)?.received(msg);
    this.batches.add({ ch, msg, row });
  }

  /**
   * A too-large delivery being set aside: tracked now, in delivery order, so that no `multiple`
   * ack takes it along; once `aside` says where its copy went (confirmed) it is listed and acked
   * like a parked one; when it could not be set aside, listed and held unacked for good.
   */
  settingAside(
    ch: Channel,
    msg: ConsumeMessage,
    row: ParkRow,
    aside: Promise<string | null>,
  ): void {
    const window = this.live.get(ch);
    window?.received(msg);
    void aside.then((queue) => {
      if (queue) row.setAside = queue;
      else window?.hold(msg);
      this.batches.add({ ch, msg, row });
    });
  }

  /**
   * Parks a batch; when the store refuses it for what a row holds (not for being down), parks
   * each half apart, down to the single message, which is set aside as unstorable.
   */
  private async parkSplitting(batch: Held[]): Promise<Parked[]> {
    try {
      const fresh = await this.store.park(batch.map((h) => h.row));
      return batch.map((held, i) => ({ held, fresh: fresh[i]! }));
    } catch (err) {
      if (!refusedForContent(err)) throw err;
      if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        return [
          ...(await this.parkSplitting(batch.slice(0, half))),
          ...(await this.parkSplitting(batch.slice(half))),
        ];
      }
      const held = batch[0]!;
      this.log.warn(
        { queue: held.row.queue, err: errorMessage(err) },
        'dead letter refused by the store for its content; set aside as unstorable',
      );
      held.row.unstorable = `the store refused it: ${errorMessage(err)}`;
      const fresh = await this.store.park([held.row]);
      if (fresh[0]) this.metrics.unstorable.inc({ queue: held.row.queue });
      return [{ held, fresh: false }];
    }
  }

  /** Counts the new rows and acks what the commit made safe to ack, channel by channel. */
  private settle(parked: Parked[]): void {
    const committed = new Map<Channel, ConsumeMessage[]>();
    for (const { held, fresh } of parked) {
      const { ch, msg, row } = held;
      if (row.sealed === null && !row.setAside) continue; // too large: held unacked
      if (row.setAside) this.metrics.setAside.inc({ queue: row.queue });
      else if (fresh) this.metrics.parkedOne(row);
      const msgs = committed.get(ch);
      if (msgs) msgs.push(msg);
      else committed.set(ch, [msg]);
    }
    for (const [ch, msgs] of committed) {
      try {
        this.live.get(ch)?.committed(msgs);
      } catch (err) {
        // The channel closed after the commit: the broker redelivers them, and each is parked once.
        this.log.debug({ err: errorMessage(err) }, 'dead letters parked but not acked');
      }
    }
  }
}

/**
 * Whether PostgreSQL refused a statement for the data it carried (SQLSTATE classes 22: data
 * exception, 23: integrity, 54: a program limit such as an index row too large), as opposed to
 * being down, overloaded or cancelled: splitting the batch can then find the row at fault.
 */
export function refusedForContent(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}
