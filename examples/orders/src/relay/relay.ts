// The outbox relay: claims unpublished rows (FOR UPDATE SKIP LOCKED), publishes them persistent
// and mandatory on a confirm channel, waits for the confirms, then sets published_at. A row whose
// publish came back unroutable (basic.return) stays unpublished and is retried after a pause.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChannelModel, ConfirmChannel, Message } from 'amqplib';
import { continueFromOutbox, trackReturns } from '@acktrail/instrument';
import type { Config } from '../config.js';
import { inTransaction, type Pool } from '../db/pool.js';
import { connectWithRecovery, type RecoveringConnection } from '../broker/connection.js';
import { publishConfirmed } from '../broker/publish.js';
import { EXCHANGE, HEADERS, ROUTING_KEY, assertTopology } from '../broker/topology.js';
import { coerceError, type Logger } from '../log.js';
import { exitAfterFlush } from '../tracing.js';
import { claimBatch, markFailed, markPublished, type OutboxRow } from './outbox.js';

export interface RelayStats {
  published: number;
  unroutable: number;
  nacked: number;
}

export class Relay {
  readonly stats: RelayStats = { published: 0, unroutable: 0, nacked: 0 };
  private conn: RecoveringConnection | null = null;
  private channel: ConfirmChannel | null = null;
  /** messageId -> reply text, filled by basic.return before the matching confirm arrives. */
  private readonly returned = new Map<string, string>();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.conn = await connectWithRecovery(
      this.config.rabbitmqUrl,
      this.log,
      (model) => this.setup(model),
      () => (this.channel = null),
    );
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    await this.conn?.close().catch(() => undefined);
  }

  private async setup(model: ChannelModel): Promise<void> {
    const ch = await model.createConfirmChannel();
    await assertTopology(ch, this.config.worker.maxAttempts);
    trackReturns(ch);
    ch.on('return', (msg: Message) => {
      const id = msg.properties.messageId as string | undefined;
      if (id)
        this.returned.set(
          id,
          `unroutable: ${(msg.fields as { replyText?: string }).replyText ?? 'NO_ROUTE'}`,
        );
    });
    ch.on('close', () => {
      if (this.channel === ch) this.channel = null;
    });
    this.channel = ch;
  }

  private async run(): Promise<void> {
    const { pollIntervalMs, batchSize } = this.config.relay;
    while (!this.stopping.signal.aborted) {
      let claimed = 0;
      const ch = this.channel;
      if (ch) {
        try {
          claimed = await this.publishBatch(ch);
        } catch (err) {
          this.log.warn({ err: coerceError(err).message }, 'publish batch failed; will retry');
        }
      }
      if (claimed < batchSize) {
        await sleep(pollIntervalMs, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  /** One transaction: claim, publish, wait for confirms, record. Returns the rows claimed. */
  private async publishBatch(ch: ConfirmChannel): Promise<number> {
    const { claimed, published, failed } = await inTransaction(this.pool, async (db) => {
      const rows = await claimBatch(db, this.config.relay.batchSize);
      if (rows.length === 0) return { claimed: 0, published: [], failed: [] };
      const results = await Promise.allSettled(rows.map((row) => this.publish(ch, row)));
      if (this.channel !== ch) throw new Error('channel closed before all confirms arrived');

      if (this.config.faults.relayExitAfterConfirm) {
        this.log.fatal(
          { events: rows.length },
          'FAULT: exiting after the confirm, before published_at',
        );
        await exitAfterFlush(1);
      }

      const published: string[] = [];
      const failed: { id: string; error: string }[] = [];
      rows.forEach((row, i) => {
        const returned = this.returned.get(row.id);
        this.returned.delete(row.id);
        if (returned) failed.push({ id: row.id, error: returned });
        else if (results[i]?.status === 'rejected')
          failed.push({ id: row.id, error: 'nacked by the broker' });
        else published.push(row.id);
      });
      await markPublished(db, published);
      await markFailed(db, failed, this.config.relay.retryAfterMs);
      return { claimed: rows.length, published, failed };
    });

    this.stats.published += published.length;
    if (failed.length > 0) {
      const unroutable = failed.filter((f) => f.error.startsWith('unroutable'));
      this.stats.unroutable += unroutable.length;
      this.stats.nacked += failed.length - unroutable.length;
      this.log.warn(
        {
          failed: failed.length,
          reason: failed[0]?.error,
          event_ids: failed.slice(0, 10).map((f) => f.id),
        },
        'publish failed; rows stay unpublished',
      );
    }
    return claimed;
  }

  private publish(ch: ConfirmChannel, row: OutboxRow): Promise<void> {
    const body = {
      event_id: row.id,
      event_type: row.event_type,
      schema_version: row.schema_version,
      ...row.payload,
    };
    // The publish span continues the trace stored with the row (instrumentation-amqplib injects
    // the new traceparent and the baggage into the headers).
    return continueFromOutbox(row.trace_context, row.id, () =>
      publishConfirmed(
        ch,
        EXCHANGE,
        this.config.faults.relayRoutingKey ?? ROUTING_KEY,
        Buffer.from(JSON.stringify(body)),
        {
          persistent: true,
          mandatory: true,
          messageId: row.id,
          type: row.event_type,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
          headers: {
            [HEADERS.aggregateType]: 'order',
            [HEADERS.aggregateId]: String(row.aggregate_id),
          },
        },
      ),
    );
  }
}
