// Replay and discard of parked dead letters. A replay publishes the message again, with its own
// message_id, properties and body, to where it was first published (message.ts
// replayTargetOf), with headers naming the replay and who asked, on a confirm channel with
// mandatory. The row is marked replayed only after the broker confirmed it; a returned or nacked
// replay stays parked with the error. Two replays of one message at once publish it once (the
// row is claimed under its lock). Each replay is a journey step of its event, and every action
// is in the audit log. Bulk replays run as jobs at a configured rate, and stop by themselves when
// too many of their messages come back dead-lettered (the cause was not fixed).
import { randomBytes, randomUUID } from 'node:crypto';
import { deserialize } from 'node:v8';
import type { Options } from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ValidatedConfig } from '../config.js';
import type { StepStore } from '../journeys/store/store.js';
import type { Step } from '../journeys/steps.js';
import { errorMessage, type Logger } from '../log.js';
import type { DeadLetterBroker } from './broker.js';
import { DEATH_HEADERS, REPLAY_HEADERS, UNSENT_PROPERTIES } from './message.js';
import type { DeadLetterMetrics } from './metrics.js';
import { keyId, unseal } from './seal.js';
import type { DeadLetter, DeadLetterStore } from './store.js';

type Settings = ValidatedConfig['deadLetters']['replay'];

export type ReplayOutcome =
  'replayed' | 'not_parked' | 'no_target' | 'unroutable' | 'nacked' | 'error';

export interface ReplayResult {
  id: string;
  eventId: string | null;
  outcome: ReplayOutcome;
  detail: string | null;
}

export interface Job {
  id: string;
  actor: string;
  total: number;
  done: number;
  replayed: number;
  /** Replays that did not go out (not parked, returned, nacked, no target, an error). */
  failed: number;
  /** Replayed messages that came back to a dead-letter queue. */
  failedAgain: number;
  state: 'running' | 'done' | 'stopped';
  stopReason: string | null;
  startedAt: string;
  finishedAt: string | null;
  /** The latest results, at most 100. */
  results: ReplayResult[];
}

const KEPT_JOBS = 50;
const CHECK_EVERY_MS = 500;

interface Sealed {
  properties: Options.Publish;
  headers: Record<string, unknown>;
  body: Buffer;
}

export class Replayer {
  private readonly jobs = new Map<string, Job & { stop: boolean; replayIds: string[] }>();

  constructor(
    private readonly store: DeadLetterStore,
    private readonly broker: DeadLetterBroker,
    private readonly key: Buffer,
    private readonly steps: StepStore | null,
    private readonly metrics: DeadLetterMetrics,
    private readonly settings: Settings,
    /** Headers that described the last failure (the reason headers): a replay starts without. */
    private readonly failureHeaders: readonly string[],
    private readonly log: Logger,
  ) {}

  /** The message as it was parked, for an operator. */
  async content(id: string): Promise<Sealed | null> {
    const row = await this.store.sealed(id);
    if (!row) return null;
    return this.open(row.keyId, row.sealed, row.queue);
  }

  private open(kid: string, sealed: Buffer, queue: string): Sealed {
    if (kid !== keyId(this.key))
      throw new Error('sealed with another ACKTRAIL_DEAD_LETTER_KEY than the current one');
    return deserialize(unseal(this.key, sealed, `${this.broker.vhost}/${queue}`)) as Sealed;
  }

  /** Replays one parked message; never throws (the outcome says what happened). */
  async replayOne(id: string, actor: string): Promise<ReplayResult & { replayId?: string }> {
    let row: Awaited<ReturnType<DeadLetterStore['claim']>>;
    try {
      row = await this.store.claim(id);
    } catch (err) {
      return { id, eventId: null, outcome: 'error', detail: errorMessage(err) };
    }
    if (!row) {
      const result = { id, eventId: null, outcome: 'not_parked' as const, detail: null };
      await this.audit(actor, 'replay', null, result);
      return result;
    }
    const result = await this.publish(row, actor);
    if (result.outcome === 'replayed') await this.store.replayed(id);
    else await this.store.replayFailed(id, `${result.outcome}: ${result.detail ?? ''}`);
    this.metrics.replays.inc({
      queue: row.queue,
      outcome:
        result.outcome === 'replayed'
          ? 'confirmed'
          : result.outcome === 'no_target'
            ? 'error'
            : result.outcome,
    });
    await this.audit(actor, 'replay', row, result);
    return result;
  }

  private async publish(
    row: DeadLetter & { keyId: string; sealed: Buffer },
    actor: string,
  ): Promise<ReplayResult & { replayId?: string }> {
    const base = { id: row.id, eventId: row.eventId };
    const target = row.replayTo;
    if (!target)
      return {
        ...base,
        outcome: 'no_target',
        detail: `nothing says where to replay it (no x-death, no x-original-exchange): set deadLetters.queues[].replayTo for ${row.queue}`,
      };
    try {
      const message = this.open(row.keyId, row.sealed, row.queue);
      const replayId = randomUUID();
      const at = new Date();
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const headers = Object.fromEntries(
        Object.entries(message.headers).filter(
          ([k]) =>
            !DEATH_HEADERS.includes(k) && !this.failureHeaders.includes(k) && k !== 'tracestate',
        ),
      );
      const outcome = await this.broker.publish(
        target.exchange,
        target.routingKey,
        message.body,
        {
          ...Object.fromEntries(
            Object.entries(message.properties).filter(([k]) => !UNSENT_PROPERTIES.includes(k)),
          ),
          headers: {
            ...headers,
            // The delivery of the replayed copy is a child of the replay step.
            traceparent: `00-${traceId}-${spanId}-01`,
            [REPLAY_HEADERS.id]: replayId,
            [REPLAY_HEADERS.by]: actor,
            [REPLAY_HEADERS.at]: at.getTime(),
          },
        },
        replayId,
      );
      if (outcome !== 'confirmed')
        return {
          ...base,
          outcome,
          detail:
            outcome === 'unroutable'
              ? `no queue is bound to exchange "${target.exchange}" with routing key "${target.routingKey}"`
              : 'the broker refused the message (nack)',
        };
      await this.journeyStep(row, actor, target, at, traceId, spanId);
      return {
        ...base,
        outcome: 'replayed',
        detail: `to exchange "${target.exchange}", routing key "${target.routingKey}"`,
        replayId,
      };
    } catch (err) {
      return { ...base, outcome: 'error', detail: errorMessage(err) };
    }
  }

  /** The replay as a step of the event's journey; a failure here is logged, not fatal. */
  private async journeyStep(
    row: DeadLetter,
    actor: string,
    target: { exchange: string; routingKey: string },
    at: Date,
    traceId: string,
    spanId: string,
  ): Promise<void> {
    if (!this.steps || !row.eventId) return;
    const step: Step = {
      eventId: row.eventId,
      timeUs: at.getTime() * 1000,
      durationUs: 0,
      stage: 'replay',
      service: 'acktrail',
      traceId,
      spanId,
      parentSpanId: null,
      name: `replay from ${row.queue}`,
      status: 'ok',
      statusMessage: null,
      aggregateType: null,
      aggregateId: null,
      anomaly: null,
      attrs: {
        'acktrail.replay.by': actor,
        'acktrail.replay.queue': row.queue,
        'messaging.destination.name': target.exchange,
        'messaging.rabbitmq.destination.routing_key': target.routingKey,
      },
    };
    await this.steps.write([step]).catch((err: unknown) => {
      this.log.warn({ err: errorMessage(err), event_id: row.eventId }, 'replay step not stored');
    });
  }

  private async audit(
    actor: string,
    action: 'replay' | 'discard',
    row: DeadLetter | null,
    result: { id: string; eventId: string | null; outcome: string; detail: string | null },
  ): Promise<void> {
    await this.store
      .audit({
        actor,
        action,
        deadLetterId: result.id,
        eventId: row?.eventId ?? result.eventId,
        queue: row?.queue ?? null,
        outcome: result.outcome,
        detail: result.detail,
      })
      .catch((err: unknown) => {
        this.log.error(
          { err: errorMessage(err), action, outcome: result.outcome },
          'audit entry not written',
        );
      });
  }

  /** Discards parked messages with a reason; returns how many were parked. */
  async discard(ids: string[], actor: string, reason: string): Promise<number> {
    const rows = await this.store.discard(ids);
    for (const row of rows) {
      this.metrics.discards.inc({ queue: row.queue });
      await this.audit(actor, 'discard', row, {
        id: row.id,
        eventId: row.eventId,
        outcome: 'discarded',
        detail: reason,
      });
    }
    return rows.length;
  }

  /** Starts replaying these messages at the configured rate; the job runs in the background. */
  start(ids: string[], actor: string): Job {
    const job = {
      id: randomUUID(),
      actor,
      total: ids.length,
      done: 0,
      replayed: 0,
      failed: 0,
      failedAgain: 0,
      state: 'running' as Job['state'],
      stopReason: null as string | null,
      startedAt: new Date().toISOString(),
      finishedAt: null as string | null,
      results: [] as ReplayResult[],
      stop: false,
      replayIds: [] as string[],
    };
    this.jobs.set(job.id, job);
    for (const old of [...this.jobs.keys()].slice(0, Math.max(0, this.jobs.size - KEPT_JOBS)))
      this.jobs.delete(old);
    void this.run(job, ids);
    return this.view(job);
  }

  job(id: string): Job | null {
    const j = this.jobs.get(id);
    return j ? this.view(j) : null;
  }

  list(): Job[] {
    return [...this.jobs.values()].reverse().map((j) => this.view(j));
  }

  /** Asks a running job to stop after the replay in hand. */
  stop(id: string): Job | null {
    const j = this.jobs.get(id);
    if (!j) return null;
    j.stop = true;
    return this.view(j);
  }

  private view(j: Job & { stop: boolean; replayIds: string[] }): Job {
    const { stop: _s, replayIds: _r, ...job } = j;
    return { ...job, results: [...job.results] };
  }

  private async run(job: Job & { stop: boolean; replayIds: string[] }, ids: string[]) {
    const s = this.settings;
    const gapMs = 1000 / s.ratePerSecond;
    const started = Date.parse(job.startedAt);
    let checkedAt = 0;
    this.log.info({ job: job.id, total: ids.length, actor: job.actor }, 'bulk replay started');
    for (const id of ids) {
      if (job.stop) {
        job.stopReason ??= 'stopped by an operator';
        break;
      }
      const t0 = Date.now();
      const r = await this.replayOne(id, job.actor);
      job.done++;
      if (r.outcome === 'replayed') {
        job.replayed++;
        if (r.replayId) job.replayIds.push(r.replayId);
      } else job.failed++;
      job.results.push({ id: r.id, eventId: r.eventId, outcome: r.outcome, detail: r.detail });
      if (job.results.length > 100) job.results.shift();
      if (Date.now() - checkedAt >= CHECK_EVERY_MS && job.replayIds.length > 0) {
        checkedAt = Date.now();
        if (await this.failingAgain(job, started)) break;
      }
      if (job.done % 100 === 0)
        this.log.info({ job: job.id, done: job.done, total: job.total }, 'bulk replay progress');
      const wait = gapMs - (Date.now() - t0);
      if (wait > 0) await sleep(wait);
    }
    job.state = job.stop ? 'stopped' : 'done';
    job.finishedAt = new Date().toISOString();
    this.log.info(
      {
        job: job.id,
        done: job.done,
        replayed: job.replayed,
        failed_again: job.failedAgain,
        state: job.state,
        reason: job.stopReason,
      },
      'bulk replay ended',
    );
  }

  /** Stops the job when too many of its replays came back dead-lettered within the window. */
  private async failingAgain(
    job: Job & { stop: boolean; replayIds: string[] },
    started: number,
  ): Promise<boolean> {
    const s = this.settings;
    try {
      job.failedAgain = await this.store.failedAgain(
        job.replayIds,
        Math.max(started, Date.now() - s.windowSeconds * 1000),
      );
    } catch (err) {
      this.log.warn({ err: errorMessage(err), job: job.id }, 'cannot count failed replays');
      return false;
    }
    const share = job.failedAgain / job.replayIds.length;
    if (job.replayIds.length >= s.minReplays && share > s.stopAfterFailedShare) {
      job.stop = true;
      job.stopReason = `${job.failedAgain} of ${job.replayIds.length} replays were dead-lettered again within ${s.windowSeconds} s (more than ${Math.round(s.stopAfterFailedShare * 100)} %): the cause is not fixed`;
    }
    return job.stop;
  }
}
