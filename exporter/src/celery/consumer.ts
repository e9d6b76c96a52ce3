// Consumes Celery's event stream (exchange `celeryev`, every routing key) into the celery metrics
// and, with a journey store, into task journeys. Messages are acked only once their steps are
// committed (a failed write is retried after a second; a redelivered message is not counted in
// the metrics twice, and its steps are stored once). The connection comes back by itself after a
// broker restart (amqplib's recovery). Optionally it asks the workers to send events, as Flower
// does (`enable_events` on the `celery.pidbox` fanout exchange).
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import type { ValidatedConfig } from '../config.js';
import type { StepStore } from '../journeys/store.js';
import type { Step } from '../journeys/steps.js';
import { parseBody } from './events.js';
import type { CeleryMetrics } from './metrics.js';
import { taskStep } from './steps.js';

const FLUSH_STEPS = 5000;
const FLUSH_MS = 50;
const QUEUE_LENGTH_EVERY_MS = 5000;

type Settings = ValidatedConfig['celery'];

export class CeleryConsumer {
  private channel: Channel | null = null;
  private probe: Channel | null = null;
  private pending: Step[] = [];
  private lastMessage: ConsumeMessage | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly queues: Set<string>;
  private closed = false;

  private constructor(
    private readonly model: { createChannel(): Promise<Channel>; close(): Promise<void> },
    private readonly settings: Settings,
    private readonly metrics: CeleryMetrics,
    private readonly store: StepStore | null,
    private readonly log: Logger,
  ) {
    this.queues = new Set(settings.queues);
  }

  static async start(
    settings: Settings,
    metrics: CeleryMetrics,
    store: StepStore | null,
    log: Logger,
  ): Promise<CeleryConsumer> {
    const holder: { consumer: CeleryConsumer | null } = { consumer: null };
    const conn = await amqp.connect(settings.url, {
      recovery: {
        initialDelay: 200,
        maxDelay: 5000,
        initialMaxRetries: 20,
        waitForConnect: false,
        setup: async (model: ChannelModel) => {
          await holder.consumer?.setup(model);
        },
      },
    });
    const consumer = new CeleryConsumer(conn, settings, metrics, store, log);
    holder.consumer = consumer;
    conn.on('disconnect', (err: Error) => {
      log.warn({ err: err.message }, 'celery: lost the broker connection; reconnecting');
    });
    conn.on('error', (err: Error) => {
      log.warn({ err: err.message }, 'celery: broker connection error');
    });
    // `setup` runs on the first connect too, and again after every reconnect.
    await conn.waitForConnect();
    consumer.every(QUEUE_LENGTH_EVERY_MS, () => consumer.measureQueues());
    if (settings.enableEventsIntervalSeconds > 0) {
      void consumer.enableEvents();
      consumer.every(settings.enableEventsIntervalSeconds * 1000, () => consumer.enableEvents());
    }
    return consumer;
  }

  private every(ms: number, run: () => Promise<void>): void {
    const timer = setInterval(() => void run(), ms);
    timer.unref();
    this.timers.push(timer);
  }

  private async setup(model: ChannelModel): Promise<void> {
    if (this.closed) return;
    const s = this.settings;
    const ch = await model.createChannel();
    ch.on('error', (err: Error) => {
      this.log.warn({ err: err.message }, 'celery: channel error');
    });
    await ch.prefetch(s.prefetch);
    await ch.assertExchange(s.exchange, 'topic', { durable: true });
    // Events are transient by nature: the queue outlives a restart of acktrail but not a long
    // absence, and never grows without bound.
    await ch.assertQueue(s.queue, {
      durable: false,
      arguments: {
        'x-expires': 3_600_000,
        'x-message-ttl': 600_000,
        'x-max-length': 1_000_000,
      },
    });
    await ch.bindQueue(s.queue, s.exchange, '#');
    this.pending = [];
    this.lastMessage = null;
    this.channel = ch;
    this.probe = null;
    await ch.consume(s.queue, (msg) => {
      if (msg) this.onMessage(msg);
    });
    this.log.info({ exchange: s.exchange, queue: s.queue }, 'celery: consuming events');
  }

  private onMessage(msg: ConsumeMessage): void {
    const count = !msg.fields.redelivered;
    for (const e of parseBody(msg.content)) {
      if (e.kind === 'skipped') {
        if (count) this.metrics.skipped.inc({ reason: e.reason });
        continue;
      }
      if (count) this.metrics.events.inc({ type: e.type });
      if (e.kind === 'worker') {
        if (count) this.metrics.worker(e);
        continue;
      }
      if (e.queue && this.queues.size < this.settings.maxQueues) this.queues.add(e.queue);
      if (this.store) this.pending.push(taskStep(e, this.metrics.taskInfo(e.uuid)));
      if (count) this.metrics.task(e);
    }
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
    const written: Promise<unknown> =
      this.store && steps.length ? this.store.write(steps) : Promise.resolve();
    const outcome = written.then(
      () => null,
      (err: unknown) => err as Error,
    );
    this.flushing = this.flushing.then(async () => {
      const err = await outcome;
      try {
        if (!err) {
          ch.ack(last, true);
          return;
        }
        this.log.warn({ err: err.message }, 'celery: storing task steps failed; retrying');
        // Later batches wait behind this one: their acks must not overtake its nack.
        await new Promise((r) => setTimeout(r, 1000));
        ch.nack(last, true, true);
      } catch {
        // the channel is gone: the broker redelivers what was not acked
      }
    });
    return this.flushing;
  }

  private async probeChannel(): Promise<Channel | null> {
    if (this.probe) return this.probe;
    try {
      const ch = await this.model.createChannel();
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
    for (const queue of this.queues) {
      const ch = await this.probeChannel();
      if (!ch) return;
      try {
        const { messageCount } = await ch.checkQueue(queue);
        this.metrics.queueLength.set({ queue }, messageCount);
      } catch {
        // no such queue (yet): checkQueue closed the probe channel; a new one is made next time
        this.metrics.queueLength.remove({ queue });
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.flush();
    await this.model.close().catch(() => undefined);
  }
}
