// acktrail's side of the dead-letter queues, on a broker connection of its own (deadLetters.url):
// it consumes each queue, parks every message in the store and acks it only after the commit, so
// nothing is lost between the queue and the store (a crash before the ack leaves the message in
// the queue; its redelivery is parked once); parker.ts commits and acks. While the store is down,
// messages stay unacked and the consumer waits. A message larger than maxMessageBytes is set
// aside: published to setAsideQueue on the confirm channel, then listed and acked, so that no
// number of them stops a queue's parking; without that queue (null, or the broker refuses it) it
// is held unacked, so it stays in its queue, and listed once as too large. Replays publish on the
// same confirm channel. Over the memory budget no queue takes new deliveries (setPaused).
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { PausableConsumer } from '../../broker/consumer.js';
import type { ValidatedConfig } from '../../config.js';
import type { Health } from '../../runtime/health.js';
import { connectRecovering, type Recovering } from '../../recovering-connection.js';
import type { Logger } from '../../log.js';
import type { DeadLetterMetrics } from '../model/metrics.js';
import { REPLAY_HEADERS } from '../model/message.js';
import { Parker } from './parker.js';
import { parkRowOf } from './row-of.js';
import { SET_ASIDE_HEADERS, declareSetAside, setAside } from './set-aside.js';
import type { DeadLetterStore } from '../store/store.js';

export const PART = 'dead_letters';
/** Queues not consumed yet (missing, or newly discovered) are looked for this often. */
const LOOK_AGAIN_MS = 5_000;

type Settings = ValidatedConfig['deadLetters'];

export type PublishOutcome = 'confirmed' | 'unroutable' | 'nacked';

export class DeadLetterBroker {
  private model: ChannelModel | null = null;
  private publisher: ConfirmChannel | null = null;
  /** The queues consumed now, each on a channel of its own. */
  private readonly consuming = new Map<string, Channel>();
  private readonly consumers = new Map<string, PausableConsumer>();
  /** No new deliveries while the exporter is over its memory budget. */
  private paused = false;
  private readonly returned = new Set<string>();
  private readonly tooLarge = new Map<string, Set<number>>();
  /** setAsideQueue once it is known to exist on this connection; null: hold instead. */
  private asideQueue: string | null = null;
  private readonly parker: Parker;
  private conn: Recovering | null = null;
  private closed = false;
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  readonly vhost: string;

  constructor(
    private readonly settings: Settings,
    private readonly key: Buffer,
    store: DeadLetterStore,
    private readonly metrics: DeadLetterMetrics,
    /** Queues of role dead_letter the broker's topology knows in a vhost, for allDeadLetterQueues. */
    private readonly discover: (vhost: string) => string[],
    private readonly health: Health,
    private readonly log: Logger,
  ) {
    this.vhost = decodeURIComponent(new URL(settings.url!).pathname.slice(1)) || '/';
    health.register(PART);
    for (const q of settings.queues) metrics.watch(q.queue);
    this.parker = new Parker(
      settings.prefetch,
      store,
      metrics,
      health,
      PART,
      log,
      this.stop.signal,
    );
  }

  start(): void {
    void connectRecovering({
      url: this.settings.url!,
      part: PART,
      health: this.health,
      purpose: 'cannot consume the dead-letter queues',
      setup: (model) => this.setup(model),
      onDisconnect: () => {
        this.lost();
      },
      closed: () => this.closed,
    }).then((c) => {
      this.conn = c;
    });
    this.timer = setInterval(() => {
      if (this.model) void this.consumeAll();
    }, LOOK_AGAIN_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.parker.close();
    this.stop.abort();
    if (this.timer) clearInterval(this.timer);
    await this.conn?.close().catch(() => undefined);
  }

  /**
   * Stops taking deliveries (what was delivered is still parked and acked) or takes them again:
   * the memory budget's switch.
   */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    this.log.warn(
      { queues: this.queues() },
      paused
        ? 'dead letters: over the memory budget, parking paused'
        : 'dead letters: under the memory budget, parking again',
    );
    for (const consumer of this.consumers.values()) void consumer.setPaused(paused);
  }

  /** The queues being parked now. */
  queues(): string[] {
    return [...this.consuming.keys()];
  }

  /**
   * Publishes a replay with mandatory on the confirm channel; resolves with the broker's answer
   * (a basic.return arrives before the confirm of the same message).
   */
  async publish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
    replayId: string,
  ): Promise<PublishOutcome> {
    const ch = this.publisher ?? (await this.openPublisher());
    const confirmed = await new Promise<boolean>((resolve, reject) => {
      try {
        ch.publish(exchange, routingKey, content, { ...options, mandatory: true }, (err) => {
          resolve(err === null || err === undefined);
        });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    if (this.returned.delete(replayId)) return 'unroutable';
    return confirmed ? 'confirmed' : 'nacked';
  }

  private lost(): void {
    this.model = null;
    this.publisher = null;
    this.consuming.clear();
    this.consumers.clear();
    this.parker.lost();
    this.tooLarge.clear();
  }

  private async setup(model: ChannelModel): Promise<void> {
    if (this.closed) return;
    this.lost();
    this.model = model;
    await this.openPublisher();
    this.asideQueue = await declareSetAside(model, this.settings.setAsideQueue, (err) => {
      this.health.error(PART, err, 'dead letters: too-large messages are held, not set aside');
    });
    await this.consumeAll();
    this.health.up(PART);
    this.log.info({ queues: this.queues() }, 'parking dead letters');
  }

  /**
   * The confirm channel replays go out on, opened again when the broker closed it (a replay it
   * refused, say one whose user-id property names another user).
   */
  private async openPublisher(): Promise<ConfirmChannel> {
    const model = this.model;
    if (!model) throw new Error('not connected to the broker');
    const pub = await model.createConfirmChannel();
    pub.on('error', (err: Error) => {
      this.health.error(PART, err, 'dead letters: replay channel error');
    });
    pub.on('close', () => {
      if (this.publisher === pub) this.publisher = null;
    });
    pub.on('return', (msg: ConsumeMessage) => {
      const headers = msg.properties.headers ?? {};
      const id = (headers[SET_ASIDE_HEADERS.id] ?? headers[REPLAY_HEADERS.id]) as unknown;
      if (typeof id === 'string') this.returned.add(id);
    });
    this.publisher = pub;
    return pub;
  }

  /**
   * Consumes every queue not consumed yet: the configured ones and, with allDeadLetterQueues, the
   * discovered ones. A queue that is not there (yet) is tried again every few seconds.
   */
  private async consumeAll(): Promise<void> {
    const wanted = [
      ...this.settings.queues.map((q) => q.queue),
      ...(this.settings.allDeadLetterQueues ? this.discover(this.vhost) : []),
    ];
    for (const q of wanted) {
      if (this.consuming.has(q)) continue;
      this.metrics.watch(q);
      await this.consume(q).catch((err: unknown) => {
        this.health.error(PART, err, `dead letters: cannot consume ${q} (retrying)`);
      });
    }
  }

  /** One channel per queue: a queue that goes away closes its own channel only. */
  private async consume(queue: string): Promise<void> {
    const model = this.model;
    if (!model) return;
    const ch = await model.createChannel();
    ch.on('error', () => undefined);
    ch.on('close', () => {
      this.parker.channelClosed(ch);
      if (this.consuming.get(queue) === ch) {
        this.consuming.delete(queue);
        this.consumers.delete(queue);
      }
      this.tooLarge.delete(queue);
      this.metrics.tooLarge.set({ queue }, 0);
    });
    await ch.prefetch(this.settings.prefetch);
    this.parker.opened(ch);
    this.consuming.set(queue, ch);
    const consumer = new PausableConsumer(
      ch,
      queue,
      (msg) => {
        this.receive(ch, queue, msg);
      },
      { noAck: false },
      this.paused,
    );
    this.consumers.set(queue, consumer);
    await consumer.start();
  }

  private receive(ch: Channel, queue: string, msg: ConsumeMessage): void {
    const { row, large } = parkRowOf(msg, queue, this.vhost, this.key, this.settings);
    if (!large) {
      this.parker.received(ch, msg, row);
      return;
    }
    const target = this.asideQueue;
    const aside = target
      ? setAside(this, target, queue, msg).catch((err: unknown) => {
          this.health.error(PART, err, `dead letters: cannot set aside a message of ${queue}`);
          return null;
        })
      : Promise.resolve(null);
    void aside.then((where) => {
      if (where === null) this.hold(queue, msg);
    });
    this.parker.settingAside(ch, msg, row, aside);
  }

  /** Held unacked: it stays in the queue, listed (once) as too large to park. */
  private hold(queue: string, msg: ConsumeMessage): void {
    const held = this.tooLarge.get(queue) ?? new Set<number>();
    held.add(msg.fields.deliveryTag);
    this.tooLarge.set(queue, held);
    this.metrics.tooLarge.set({ queue }, held.size);
  }
}
