// Celery's event stream on a RabbitMQ broker (exchange `celeryev`, every routing key), fed to the
// Celery core (intake.ts): metrics and, with a journey store, task journeys. Messages are acked only once their steps are
// committed (a failed write is retried with backoff; a redelivered message is not counted in the
// metrics twice, and its steps are stored once). The connection is made, and made again after a
// broker restart, by amqplib's recovery, with backoff and without end: a broker that is down at
// start or goes away later is reported down (Health, /readyz), never a reason to restart.
// Optionally it asks the workers to send events, as Flower does (`enable_events` on the
// `celery.pidbox` fanout exchange). Over the memory budget it takes no new events.
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { backoffMs } from '../backoff.js';
import type { Health, PartStatus } from '../runtime/health.js';
import { connectRecovering, type Recovering } from '../recovering-connection.js';
import { errorMessage } from '../log.js';
import type { Step } from '../journeys/model/steps.js';
import { PausableConsumer } from '../broker/consumer.js';
import type { MemoryBudget } from '../runtime/memory.js';
import {
  Loops,
  PART,
  type CeleryIntake,
  type CelerySettings,
  type CeleryTransport,
} from './intake.js';

export const FLUSH_STEPS = 5000;
export const FLUSH_MS = 50;
export const QUEUE_LENGTH_EVERY_MS = 5000;

/** The arguments acktrail declares its event queue with (see setup below for why each). */
export function eventQueueArguments(s: { queueMaxBytes: number }): Record<string, unknown> {
  return {
    'x-expires': 3_600_000,
    'x-message-ttl': 600_000,
    'x-max-length': 1_000_000,
    'x-max-length-bytes': s.queueMaxBytes,
    'x-single-active-consumer': true,
  };
}

export class CeleryAmqpConsumer implements CeleryTransport {
  readonly name = PART;
  private channel: Channel | null = null;
  private model: ChannelModel | null = null;
  private probe: Channel | null = null;
  private pending: Step[] = [];
  private lastMessage: ConsumeMessage | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private failures = 0;
  private readonly loops = new Loops();
  private closed = false;
  private conn: Recovering | null = null;
  private connects = 0;
  private readonly settings: CelerySettings;
  private consumer: PausableConsumer | null = null;
  private unwatch: () => void = () => undefined;

  constructor(
    private readonly intake: CeleryIntake,
    private readonly reports: Health,
    private readonly log: Logger,
    /** Over it, the consumer takes no new events (another replica may take the queue). */
    private readonly memory: MemoryBudget | null = null,
  ) {
    this.settings = intake.settings;
    reports.register(PART);
  }

  /** Starts connecting in the background; never rejects and never gives up. */
  start(): void {
    void connectRecovering({
      url: this.settings.url,
      part: PART,
      health: this.reports,
      purpose: 'cannot consume the event stream',
      setup: (model) => this.setup(model),
      onDisconnect: () => {
        this.channel = null;
      },
      closed: () => this.closed,
    }).then((c) => {
      this.conn = c;
    });
    this.unwatch =
      this.memory?.onChange((over) => {
        this.log.warn(
          over
            ? 'celery: over the memory budget, events paused'
            : 'celery: under the memory budget, taking events again',
        );
        void this.consumer?.setPaused(over);
      }) ?? this.unwatch;
    this.loops.every(QUEUE_LENGTH_EVERY_MS, () => this.measureQueues());
    if (this.settings.enableEventsIntervalSeconds > 0)
      this.loops.every(this.settings.enableEventsIntervalSeconds * 1000, () => this.enableEvents());
  }

  /** Runs on every (re)connect; a failure here makes amqplib close and try again later. */
  private async setup(model: ChannelModel): Promise<void> {
    if (this.closed) return;
    if (this.connects++ > 0) this.intake.metrics.reconnects.inc();
    const s = this.settings;
    const ch = await model.createChannel();
    ch.on('error', (err: Error) => {
      this.reports.error(PART, err, 'celery: channel error');
    });
    await ch.prefetch(s.prefetch);
    await ch.assertExchange(s.exchange, 'topic', { durable: true });
    // Events are transient by nature: the queue outlives a restart of acktrail but not a long
    // absence, and never grows without bound, in messages or in bytes. Durable, because RabbitMQ 4
    // deprecates transient queues that are not exclusive; x-expires still removes it. Several
    // exporter replicas share it with a single active consumer: one takes every event (a task's
    // events, its name and queue wait, stay together), the others take over when it goes.
    try {
      await ch.assertQueue(s.queue, { durable: true, arguments: eventQueueArguments(s) });
    } catch (err) {
      throw new Error(
        `queue ${s.queue} exists with other arguments than acktrail's (an older acktrail made it?): delete it, or set celery.queue to another name (${errorMessage(err)})`,
        { cause: err },
      );
    }
    await ch.bindQueue(s.queue, s.exchange, '#');
    this.pending = [];
    this.lastMessage = null;
    this.channel = ch;
    this.model = model;
    this.probe = null;
    // The consumer's channel closed while the connection stays (an ack the broker refused):
    // close the connection too, so that recovery makes both again.
    ch.on('close', () => {
      if (this.channel === ch && !this.closed) {
        this.channel = null;
        void model.close().catch(() => undefined);
      }
    });
    this.consumer = new PausableConsumer(
      ch,
      s.queue,
      (msg) => {
        this.onMessage(msg);
      },
      {},
      this.memory?.over ?? false,
    );
    await this.consumer.start();
    this.reports.up(PART);
    this.log.info({ exchange: s.exchange, queue: s.queue }, 'celery: consuming events');
    if (s.enableEventsIntervalSeconds > 0) void this.enableEvents();
  }

  private onMessage(msg: ConsumeMessage): void {
    for (const step of this.intake.take(msg.content, !msg.fields.redelivered))
      this.pending.push(step);
    this.lastMessage = msg;
    if (this.pending.length >= FLUSH_STEPS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /**
   * Writes the steps of the messages received so far, then acks them all at once. Writes run
   * side by side (the store commits several groups at a time), but acks go out in delivery order:
   * an ack with `multiple` covers every earlier delivery, and acking a tag twice would close the
   * channel.
   */
  private flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ch = this.channel;
    const last = this.lastMessage;
    const steps = this.pending;
    if (!ch || !last) return this.flushing;
    this.pending = [];
    this.lastMessage = null;
    const outcome = this.intake.write(steps).then(
      () => null,
      (err: unknown) => err as Error,
    );
    this.flushing = this.flushing.then(async () => {
      const err = await outcome;
      try {
        if (!err) {
          this.failures = 0;
          ch.ack(last, true);
          return;
        }
        this.failures++;
        // The store's own state change is logged once (Health); each retry only at debug level.
        this.log.debug({ err: err.message }, 'celery: storing task steps failed; retrying');
        // Later batches wait behind this one: their acks must not overtake its nack.
        await new Promise((r) => setTimeout(r, backoffMs(this.failures, 1000)));
        ch.nack(last, true, true);
      } catch {
        // the channel is gone: the broker redelivers what was not acked
      }
    });
    return this.flushing;
  }

  private async probeChannel(): Promise<Channel | null> {
    if (this.probe) return this.probe;
    const model = this.model;
    if (!model) return null;
    try {
      const ch = await model.createChannel();
      ch.on('error', () => undefined);
      ch.on('close', () => {
        if (this.probe === ch) this.probe = null;
      });
      this.probe = ch;
      return ch;
    } catch {
      return null;
    }
  }

  private async measureQueues(): Promise<void> {
    for (const queue of this.intake.queues) {
      const ch = await this.probeChannel();
      if (!ch) return;
      try {
        const { messageCount } = await ch.checkQueue(queue);
        this.intake.metrics.queueLength.set({ queue }, messageCount);
      } catch (err) {
        // 404, no such queue (yet): the broker closed the probe channel, and a new one is made
        // next time. Any other failure (the channel closed under it by another check, the
        // connection lost) says nothing about the queue: its last reading stays until the next.
        if ((err as { code?: unknown }).code === 404)
          this.intake.metrics.queueLength.remove({ queue });
        else return;
      }
    }
  }

  /** `celery control enable_events`, as kombu's broadcast sends it. */
  private async enableEvents(): Promise<void> {
    const ch = await this.probeChannel();
    if (!ch) return;
    try {
      await ch.checkExchange('celery.pidbox');
      ch.publish(
        'celery.pidbox',
        '',
        Buffer.from(
          JSON.stringify({
            method: 'enable_events',
            arguments: {},
            destination: null,
            pattern: null,
            matcher: null,
          }),
        ),
        { contentType: 'application/json', contentEncoding: 'utf-8', deliveryMode: 1 },
      );
      this.log.debug('celery: asked the workers to send events');
    } catch {
      // no worker has declared its control exchange yet
    }
  }

  health(): PartStatus {
    return this.reports.statusOf(PART);
  }

  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unwatch();
    this.loops.stop();
    await this.flush();
    await this.conn?.close().catch(() => undefined);
  }
}
