// Celery's event stream on a RabbitMQ broker (exchange `celeryev`, every routing key), fed to the
// Celery core (intake.ts): metrics and, with a journey store, task journeys. Messages are acked
// only once their steps are committed, in batches (batching/batch-writer.ts); a failed write is
// nacked after backoff and the broker redelivers it (a redelivered message is not counted in the
// metrics twice, and its steps are stored once). The connection is made, and made again after a
// broker restart, by amqplib's recovery, with backoff and without end: a broker that is down at
// start or goes away later is reported down (Health, /readyz), never a reason to restart.
// Optionally it asks the workers to send events, as Flower does (`enable_events` on the
// `celery.pidbox` fanout exchange). Over the memory budget it takes no new events.
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { BatchWriter } from '../batching/batch-writer.js';
import type { Health, PartStatus } from '../runtime/health.js';
import { connectRecovering, type Recovering } from '../recovering-connection.js';
import { errorMessage } from '../log.js';
import type { Step } from '../journeys/model/steps.js';
import { PausableConsumer } from '../broker/consumer.js';
import type { MemoryBudget } from '../runtime/memory.js';
import { PART, type CeleryIntake, type CelerySettings, type CeleryTransport } from './intake.js';
import { Loops } from './loops.js';

export const FLUSH_STEPS = 5000;
export const FLUSH_MS = 50;
export const QUEUE_LENGTH_EVERY_MS = 5000;
/** Batches written at once: the store commits several groups at a time. */
const WRITES_AT_ONCE = 4;

/** A delivery and the steps taken from it. */
interface Delivered {
  ch: Channel;
  msg: ConsumeMessage;
  steps: Step[];
}

/** Acks or nacks each channel's last delivery of a batch, covering the ones before (`multiple`). */
function settle(batch: Delivered[], how: (ch: Channel, last: ConsumeMessage) => void): void {
  const last = new Map<Channel, ConsumeMessage>();
  for (const d of batch) last.set(d.ch, d.msg);
  for (const [ch, msg] of last) {
    try {
      how(ch, msg);
    } catch {
      // the channel is gone: the broker redelivers what was not acked
    }
  }
}

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
  /**
   * Writes the steps of the deliveries received so far, then acks them. Writes run side by side,
   * but acks go out in delivery order (`ordered`): an ack with `multiple` covers every earlier
   * delivery, and acking a tag twice would close the channel. A failed batch is nacked (requeued)
   * after backoff, and the batches after it wait: their acks must not overtake its nack.
   */
  private readonly batches: BatchWriter<Delivered>;
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
    this.batches = new BatchWriter<Delivered>({
      maxItems: FLUSH_STEPS,
      delayMs: FLUSH_MS,
      concurrency: WRITES_AT_ONCE,
      ordered: true,
      weight: (d) => d.steps.length,
      write: (batch) => intake.write(batch.flatMap((d) => d.steps)),
      committed: (batch) => {
        settle(batch, (ch, last) => {
          ch.ack(last, true);
        });
      },
      failed: (err) => {
        // The store's own state change is logged once (Health); each retry only at debug level.
        log.debug({ err: errorMessage(err) }, 'celery: storing task steps failed; retrying');
        return 'release';
      },
      released: (batch) => {
        settle(batch, (ch, last) => {
          ch.nack(last, true, true);
        });
      },
    });
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
    // What the last channel delivered and did not ack is the broker's to redeliver.
    this.batches.clear();
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
        this.batches.add({
          ch,
          msg,
          steps: this.intake.take(msg.content, !msg.fields.redelivered),
        });
      },
      {},
      this.memory?.over ?? false,
    );
    await this.consumer.start();
    this.reports.up(PART);
    this.log.info({ exchange: s.exchange, queue: s.queue }, 'celery: consuming events');
    if (s.enableEventsIntervalSeconds > 0) void this.enableEvents();
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
    // Waited for last: a probe under way ends, at the latest, when the connection has closed.
    const runs = this.loops.stop();
    this.batches.close();
    await this.batches.flush();
    await this.conn?.close().catch(() => undefined);
    await runs;
  }
}
