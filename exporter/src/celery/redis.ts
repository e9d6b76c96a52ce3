// Celery's event stream on a Redis broker, fed to the Celery core (intake.ts). kombu's Redis
// transport makes the `celeryev` exchange a fanout over pub/sub: each event message is a PUBLISH
// on `<fanout prefix><exchange>/<routing key>` (the prefix is `/<db>.` by default), its payload
// kombu's JSON envelope around the body (base64 unless the envelope says otherwise). acktrail
// subscribes as Celery's own event receiver does (PSUBSCRIBE `<prefix>celeryev/*`). Pub/sub
// keeps nothing: what is published while nobody listens is lost, so every gap is said (the
// reconnect counter, the last-received gauge, a note in /status). Several exporter replicas
// elect one subscriber with a lease in Redis (SET NX PX, renewed), so that no event is counted
// twice; the others stand by and take over when the lease runs out.
// Queue lengths come from the broker itself, as celery-exporter reads them: LLEN of each queue's
// list and of its priority lists (`<queue>\x06\x16<priority>`), and kombu's `unacked` hash and
// `unacked_index` sorted set for the reserved, unacknowledged task messages; one pipeline per
// measurement, never KEYS.
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { backoffMs } from '../backoff.js';
import type { Health, PartStatus } from '../runtime/health.js';
import { errorMessage } from '../log.js';
import type { Step } from '../journeys/model/steps.js';
import { BatchWriter } from '../batching/batch-writer.js';
import { FLUSH_MS, FLUSH_STEPS, QUEUE_LENGTH_EVERY_MS } from './amqp.js';
import { PART, type CeleryIntake, type CelerySettings, type CeleryTransport } from './intake.js';
import { Loops } from './loops.js';
import { releaseLease, takeLease } from './redis-lease.js';
import {
  envelope,
  envelopeBody,
  eventPatterns,
  fanoutChannels,
  readQueues,
  redisTarget,
} from './kombu-redis.js';

/** Delivery tags remembered to take a message heard on two channels once. */
const RECENT_TAGS = 1000;
/** Steps held while the store is away; past it the oldest are dropped (counted). */
const MAX_PENDING_STEPS = 200_000;
export class CeleryRedisConsumer implements CeleryTransport {
  readonly name = PART;
  private readonly settings: CelerySettings;
  private readonly token = randomUUID();
  private cmd: Redis | null = null;
  private sub: Redis | null = null;
  private subscribing: Promise<void> | null = null;
  /**
   * The steps heard so far, stored in batches one at a time. Nothing can be redelivered from
   * pub/sub: a failed write is written again after backoff, and while the store is away the steps
   * wait here, up to MAX_PENDING_STEPS (the oldest waiting beyond it are dropped and counted).
   */
  private readonly batches: BatchWriter<Step>;
  private readonly loops = new Loops();
  private closed = false;
  /** Delivery tags of the last messages, to take each once when two channels carry it. */
  private readonly recent = new Set<string>();
  /** When this replica last stopped hearing events (a reconnect, a lost lease), until now. */
  private gapSince: number | null = null;

  constructor(
    private readonly intake: CeleryIntake,
    private readonly reports: Health,
    private readonly log: Logger,
  ) {
    this.settings = intake.settings;
    reports.register(PART);
    intake.metrics.visibilityTimeout.set(this.settings.redis.visibilityTimeoutSeconds);
    this.batches = new BatchWriter<Step>({
      maxItems: FLUSH_STEPS,
      delayMs: FLUSH_MS,
      maxHeld: MAX_PENDING_STEPS,
      write: (steps) => intake.write(steps),
      committed: () => undefined,
      failed: (err) => {
        log.debug({ err: errorMessage(err) }, 'celery: storing task steps failed; retrying');
        return 'retry';
      },
      dropped: (steps) => {
        intake.metrics.skipped.inc({ reason: 'store_unavailable' }, steps.length);
      },
    });
  }

  private connect(role: string): Redis {
    const options: RedisOptions = {
      connectionName: `acktrail-${role}`,
      // Commands fail at once while disconnected; the loops try again on their next tick.
      enableOfflineQueue: role === 'events',
      maxRetriesPerRequest: 1,
      connectTimeout: 5000,
      retryStrategy: (attempt) => backoffMs(attempt, 500, 10_000),
      sentinelRetryStrategy: (attempt) => backoffMs(attempt, 500, 10_000),
      // A sentinel that accepts and never answers would hold the connect for good (no default).
      sentinelCommandTimeout: 5000,
      lazyConnect: true,
    };
    const target = redisTarget(this.settings.url, this.settings.redis.masterName);
    const client =
      typeof target === 'string'
        ? new Redis(target, options)
        : new Redis({ ...target, ...options });
    client.on('error', (err: Error) => {
      if (!this.closed) this.reports.down(PART, err, 'cannot reach the Redis broker');
    });
    return client;
  }

  /** Starts in the background; never rejects and never gives up. */
  start(): void {
    this.cmd = this.connect('commands');
    let readies = 0;
    this.cmd.on('ready', () => {
      if (this.closed) return;
      // One per outage of the broker (the subscription's own connection comes back with it).
      if (readies++ > 0) this.intake.metrics.reconnects.inc();
      this.reports.up(PART);
    });
    void this.cmd.connect().catch(() => undefined);
    const leaseMs = this.settings.redis.leaseSeconds * 1000;
    this.loops.every(Math.max(200, Math.floor(leaseMs / 3)), () => this.elect(leaseMs));
    this.loops.every(QUEUE_LENGTH_EVERY_MS, () => this.measureQueues());
    if (this.settings.enableEventsIntervalSeconds > 0)
      this.loops.every(this.settings.enableEventsIntervalSeconds * 1000, () => this.enableEvents());
    this.loops.now(() => this.elect(leaseMs));
  }

  /** `celery control enable_events`, as kombu's broadcast sends it over Redis (a PUBLISH). */
  private async enableEvents(): Promise<void> {
    const cmd = this.cmd;
    if (!cmd || cmd.status !== 'ready') return;
    const command = {
      method: 'enable_events',
      arguments: {},
      destination: null,
      pattern: null,
      matcher: null,
    };
    for (const channel of fanoutChannels(this.settings, 'celery.pidbox'))
      await cmd.publish(channel, envelope(command, 'celery.pidbox', '')).then(
        () => {
          this.log.debug('celery: asked the workers to send events');
        },
        (err: unknown) => {
          this.reports.error(PART, err, 'celery: asking for events failed');
        },
      );
  }

  /** Takes or renews the subscriber's lease; subscribes while holding it, stops when lost. */
  private async elect(leaseMs: number): Promise<void> {
    const cmd = this.cmd;
    if (!cmd || cmd.status !== 'ready') return;
    try {
      const key = this.settings.redis.leaseKey;
      const taken = await takeLease(cmd, key, this.token, leaseMs);
      // Stopped while the lease was asked for (no run starts after stop, one can be under way).
      if (this.closed) return;
      if (taken === 'from a squatter')
        this.reports.error(
          PART,
          new Error(`the lease key ${key} was held without expiry, so not by acktrail`),
          'celery: took the Redis subscriber lease from a key set by something else',
        );
      const mine = taken !== 'held by another';
      if (mine && !this.sub) await this.subscribe();
      if (!mine && this.sub) {
        this.log.warn('celery: another replica holds the Redis subscription now; standing by');
        this.unsubscribe();
      }
    } catch (err) {
      this.reports.error(PART, err, 'celery: the Redis subscriber lease failed');
    }
  }

  private subscribe(): Promise<void> {
    this.subscribing ??= (async () => {
      const patterns = eventPatterns(this.settings);
      const sub = this.connect('events');
      let readies = 0;
      sub.on('ready', () => {
        // ioredis subscribes again by itself on every reconnect; what was published between
        // is gone.
        if (readies++ > 0) this.gap('the Redis subscription was reconnected');
      });
      sub.on('close', () => {
        if (!this.closed && this.sub === sub) this.gapSince ??= Date.now();
      });
      sub.on('pmessageBuffer', (_pattern: Buffer, _channel: Buffer, payload: Buffer) => {
        this.onMessage(payload);
      });
      sub.on('messageBuffer', (_channel: Buffer, payload: Buffer) => {
        this.onMessage(payload);
      });
      this.sub = sub;
      await sub.connect();
      if (this.settings.redis.fanoutPatterns) await sub.psubscribe(...patterns);
      else await sub.subscribe(...patterns);
      this.log.info({ patterns }, 'celery: subscribed to the Redis event channel');
      this.gap(null);
    })()
      .catch((err: unknown) => {
        this.reports.error(PART, err, 'celery: subscribing to the Redis event channel failed');
        this.unsubscribe();
      })
      .finally(() => {
        this.subscribing = null;
      });
    return this.subscribing;
  }

  private unsubscribe(): void {
    const sub = this.sub;
    this.sub = null;
    sub?.disconnect();
    this.gapSince ??= Date.now();
  }

  /** Records the end of a gap in hearing the events, or that hearing resumed without one. */
  private gap(what: string | null): void {
    const since = this.gapSince;
    this.gapSince = null;
    if (since === null && what === null) return;
    const from = new Date(since ?? Date.now()).toISOString();
    const text = `${what ?? 'subscribed again'}; events published from ${from} to ${new Date().toISOString()} were not heard (Redis pub/sub keeps nothing)`;
    this.reports.note(PART, text);
    this.log.warn({ since: from }, `celery: ${text}`);
  }

  private onMessage(payload: Buffer): void {
    if (payload.length > this.settings.maxMessageBytes) {
      this.intake.skip('too_large');
      return;
    }
    const env = envelopeBody(payload);
    if (env === null) {
      this.intake.skip('malformed');
      return;
    }
    // A publisher in kombu's Sentinel compatibility mode sends each message on both channels.
    if (env.tag !== null && this.recent.has(env.tag)) return;
    if (env.tag !== null) {
      this.recent.add(env.tag);
      if (this.recent.size > RECENT_TAGS) this.recent.delete(this.recent.values().next().value!);
    }
    this.batches.add(...this.intake.take(env.body, true));
  }

  /** Queue lengths (priorities included) and the unacknowledged messages, one pipeline. */
  private async measureQueues(): Promise<void> {
    const cmd = this.cmd;
    if (!cmd || cmd.status !== 'ready') return;
    let read;
    try {
      read = await readQueues(cmd, this.settings.redis, [...this.intake.queues]);
    } catch (err) {
      this.reports.error(PART, err, 'celery: reading the Redis queue lengths failed');
      return;
    }
    if (!read) return;
    for (const [queue, length] of read.lengths)
      this.intake.metrics.queueLength.set({ queue }, length);
    this.intake.metrics.unacked.set(read.unacked);
    this.intake.metrics.unackedOldestAge.set(read.oldestUnackedAgeS);
  }

  health(): PartStatus {
    return this.reports.statusOf(PART);
  }

  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A run under way (a lease taken, a subscription begun) ends before the connections close.
    await this.loops.stop();
    // What waits is written once more below; a write that fails now is not retried.
    this.batches.close();
    await this.subscribing;
    this.sub?.disconnect();
    this.sub = null;
    await this.batches.flush();
    const cmd = this.cmd;
    if (cmd?.status === 'ready')
      await releaseLease(cmd, this.settings.redis.leaseKey, this.token).catch(() => undefined);
    cmd?.disconnect();
  }
}
