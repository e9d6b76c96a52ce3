// The outbox relay: unsent rows, oldest first, published with publisher confirms and marked sent
// in the same transaction that locked them (FOR UPDATE SKIP LOCKED: relays may run side by side).
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { inTransaction, type Pool } from './db.js';
import { messageOf, type Logger } from './log.js';
import { encode, type Payment } from './broker.js';
import { EXCHANGE } from './topology.js';

interface Row extends Payment {
  msg_uuid: string;
  topic: string;
}

export class Relay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  private constructor(
    private readonly pool: Pool,
    private readonly ch: ConfirmChannel,
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  static async start(pool: Pool, conn: ChannelModel, log: Logger, intervalMs: number) {
    const relay = new Relay(pool, await conn.createConfirmChannel(), log, intervalMs);
    relay.schedule();
    return relay;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drain()
        .catch((err: unknown) => {
          this.log.warn({ err: messageOf(err) }, 'relay pass failed');
        })
        .finally(() => {
          this.schedule();
        });
    }, this.intervalMs);
  }

  /** Publishes batches until the outbox is empty. */
  private async drain(): Promise<void> {
    while (!this.stopped && (await this.batch()) > 0);
  }

  private batch(): Promise<number> {
    return inTransaction(this.pool, async (c) => {
      const { rows } = await c.query<Row>(
        `SELECT o.msg_uuid, o.topic, i.intent_ref, i.amount_cents, i.currency
           FROM pay_outbox o JOIN pay_intents i USING (intent_ref)
          WHERE o.sent_ts IS NULL ORDER BY o.inserted_ts LIMIT 50
            FOR UPDATE OF o SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      for (const r of rows)
        this.ch.publish(EXCHANGE, r.topic, encode(r), {
          messageId: r.msg_uuid,
          persistent: true,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
        });
      await this.ch.waitForConfirms();
      await c.query('UPDATE pay_outbox SET sent_ts = now() WHERE msg_uuid = ANY($1::uuid[])', [
        rows.map((r) => r.msg_uuid),
      ]);
      this.log.info({ published: rows.length }, 'published');
      return rows.length;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
