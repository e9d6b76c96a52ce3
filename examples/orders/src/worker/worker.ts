// The confirmation worker: prefetch N, manual ack on the delivering channel after the result is
// committed. Re-reads the order, calls the provider with idempotency key
// order-confirmation:<order_id>, retries transient failures through per-attempt retry queues and
// dead-letters permanent failures and exhausted retries with their reason.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { recordResult, withProviderCall, withResultCommit } from '@acktrail/instrument';
import type { Config } from '../config.js';
import type { Pool } from '../db/pool.js';
import { connectWithRecovery, type RecoveringConnection } from '../broker/connection.js';
import { publishConfirmed } from '../broker/publish.js';
import {
  DEAD_LETTER_EXCHANGE,
  HEADERS,
  WORK_QUEUE,
  assertTopology,
  retryQueue,
} from '../broker/topology.js';
import { parseOrderEvent } from '../events.js';
import { coerceError, type Logger } from '../log.js';
import { exitAfterFlush } from '../tracing.js';
import { sendConfirmationMail } from './provider-client.js';
import { loadOrder, recordAttempt, reopenOrder } from './results.js';
import { retryDelayMs } from './retry.js';

export type Settlement = 'sent' | 'already_done' | 'skipped_cancelled' | 'retry' | 'dead_lettered';

export class Worker {
  private conn: RecoveringConnection | null = null;
  private consumer: { ch: Channel; tag: string } | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.conn = await connectWithRecovery(this.config.rabbitmqUrl, this.log, (model) =>
      this.setup(model),
    );
  }

  /** Stops taking deliveries, lets the ones in hand finish, then closes the connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.consumer) await this.consumer.ch.cancel(this.consumer.tag).catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    await this.conn?.close().catch(() => undefined);
  }

  private async setup(model: ChannelModel): Promise<void> {
    const ch = await model.createChannel();
    const pub = await model.createConfirmChannel();
    await assertTopology(ch, this.config.worker.maxAttempts);
    await ch.prefetch(this.config.worker.prefetch);
    if (this.stopping) return;
    const { consumerTag } = await ch.consume(
      WORK_QUEUE,
      (msg) => {
        if (!msg) return; // consumer cancelled by the broker (queue deleted)
        const work = this.onDelivery(ch, pub, msg).finally(() => this.inFlight.delete(work));
        this.inFlight.add(work);
      },
      { noAck: false },
    );
    this.consumer = { ch, tag: consumerTag };
  }

  private async onDelivery(ch: Channel, pub: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    try {
      const settled = await this.handle(pub, msg);
      recordResult(settled);
      ch.ack(msg);
      this.log.debug({ event_id: msg.properties.messageId as unknown, settled }, 'acked');
    } catch (err) {
      // Database or broker trouble: give the delivery back after a pause instead of spinning.
      this.log.error(
        { err: coerceError(err).message, event_id: msg.properties.messageId as unknown },
        'processing failed; requeueing',
      );
      await sleep(1000);
      try {
        ch.nack(msg, false, true);
      } catch {
        // The channel is gone; the broker requeues the delivery by itself.
      }
    }
  }

  /** Does the work for one delivery; the caller acks when this resolves. */
  private async handle(pub: ConfirmChannel, msg: ConsumeMessage): Promise<Settlement> {
    const parsed = parseOrderEvent(msg.content);
    if (!parsed.ok) return this.deadLetter(pub, msg, parsed.reason);
    const { event_id: eventId, order_id: orderId } = parsed.event;
    const log = this.log.child({
      event_id: eventId,
      order_id: orderId,
      redelivered: msg.fields.redelivered,
    });

    const order = await loadOrder(this.pool, orderId);
    if (!order) return this.deadLetter(pub, msg, 'order not found');
    if (order.status === 'cancelled') {
      log.info('order cancelled; nothing to send');
      return 'skipped_cancelled';
    }
    // An operator replayed the dead letter after fixing its cause (the seed's procedure): an
    // order whose notification failed gets a new round of attempts. The provider's idempotency
    // key still keeps it to one e-mail if the first round did send one.
    const replayedAt = this.replayedAt(msg);
    if (replayedAt && order.notification_status === 'failed' && !order.confirmed) {
      await reopenOrder(this.pool, orderId);
      order.notification_status = 'pending';
      log.info('replayed dead letter: a new round of attempts');
    }
    if (order.confirmed || order.notification_status !== 'pending') {
      log.info(
        { notification_status: order.notification_status },
        'already done; acking the duplicate',
      );
      return 'already_done';
    }

    const idempotencyKey = `order-confirmation:${orderId}`;
    const result = await withProviderCall(
      { provider: this.config.provider.name, idempotencyKey },
      () =>
        sendConfirmationMail(this.config.provider.url, this.config.worker.providerTimeoutMs, {
          to: order.customer_email,
          orderId,
          idempotencyKey,
        }),
    );
    if (this.config.faults.workerExitAfterProviderCall) {
      log.fatal('FAULT: exiting after the provider call, before recording it');
      await exitAfterFlush(1);
    }
    const { attempt, inRound, verdict } = await withResultCommit(() =>
      recordAttempt(this.pool, {
        eventId,
        orderId,
        provider: this.config.provider.name,
        maxAttempts: this.config.worker.maxAttempts,
        roundSince: replayedAt,
        result,
      }),
    );
    if (this.config.faults.workerExitAfterCommit) {
      log.fatal('FAULT: exiting after the commit, before the ack');
      await exitAfterFlush(1);
    }
    if (verdict === 'sent') {
      log.debug({ attempt, outcome: result.outcome }, 'confirmation sent');
      return 'sent';
    }
    if (verdict === 'retry') {
      // The retry queue and delay follow the attempt within this round (a replay starts a new one).
      const delay = retryDelayMs(inRound, this.config.worker.retry);
      await publishConfirmed(pub, '', retryQueue(inRound), msg.content, {
        ...this.carriedProperties(msg, attempt + 1),
        expiration: String(delay),
      });
      log.info(
        { attempt, outcome: result.outcome, delay_ms: delay },
        'provider failed; retry scheduled',
      );
      return 'retry';
    }
    const reason =
      result.outcome === 'permanent_error'
        ? result.detail
        : `attempts exhausted (${attempt}): ${result.detail}`;
    return this.deadLetter(pub, msg, reason, attempt);
  }

  private async deadLetter(
    pub: ConfirmChannel,
    msg: ConsumeMessage,
    reason: string,
    attempt?: number,
  ): Promise<Settlement> {
    const props = this.carriedProperties(msg, attempt ?? this.attemptOf(msg));
    props.headers = {
      ...(props.headers as Record<string, unknown>),
      [HEADERS.deadLetterReason]: reason,
      [HEADERS.originalExchange]: msg.fields.exchange,
      [HEADERS.originalRoutingKey]: msg.fields.routingKey,
    };
    await publishConfirmed(pub, DEAD_LETTER_EXCHANGE, WORK_QUEUE, msg.content, props);
    this.log.warn({ event_id: msg.properties.messageId as unknown, reason }, 'dead-lettered');
    return 'dead_lettered';
  }

  private replayedAt(msg: ConsumeMessage): Date | null {
    const headers = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const at = Number(headers[HEADERS.replayedAt]);
    return Number.isFinite(at) && at > 0 ? new Date(at) : null;
  }

  private attemptOf(msg: ConsumeMessage): number {
    const headers = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const n = Number(headers[HEADERS.attempt]);
    return Number.isInteger(n) && n > 0 ? n : 1;
  }

  /** The original message's identity and headers, for a copy published elsewhere. */
  private carriedProperties(msg: ConsumeMessage, attempt: number): Options.Publish {
    const p = msg.properties;
    return {
      persistent: true,
      messageId: p.messageId as string | undefined,
      type: p.type as string | undefined,
      contentType: p.contentType as string | undefined,
      timestamp: p.timestamp as number | undefined,
      headers: {
        ...p.headers,
        [HEADERS.attempt]: attempt,
      },
    };
  }
}
