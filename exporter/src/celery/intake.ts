// The one Celery core that both transports (amqp.ts, redis.ts) feed: a message body's events
// become metrics and task steps, the queues they name are remembered for the queue lengths, and
// steps are stored with refused ones set aside one by one. What a transport adds is only how
// messages arrive, are acknowledged (or cannot be) and how its queues are measured.
import type { Logger } from 'pino';
import type { ValidatedConfig } from '../config.js';
import type { JourneyWriter } from '../journeys/writer.js';
import type { Step } from '../journeys/model/steps.js';
import { eventLimits, parseBody, type EventLimits } from './events.js';
import type { CeleryMetrics } from './metrics.js';
import { taskStep } from './steps.js';
import type { Part } from '../runtime/parts.js';

export const PART = 'celery';

export type CelerySettings = ValidatedConfig['celery'];

/** A Celery event transport: a part of the exporter, named and reported in Health as PART. */
export type CeleryTransport = Part;

export class CeleryIntake {
  /** The queues whose length is reported: configured, and those the tasks' events name. */
  readonly queues: Set<string>;

  constructor(
    readonly settings: CelerySettings,
    private readonly retentionDays: number,
    readonly metrics: CeleryMetrics,
    private readonly writer: JourneyWriter | null,
    private readonly log: Logger,
  ) {
    this.queues = new Set(settings.queues);
  }

  private limits(): EventLimits {
    return eventLimits(this.settings.maxMessageBytes, this.retentionDays);
  }

  /**
   * The task steps of one message body (a JSON event or a list of them); its events are counted
   * in the metrics unless `count` is false (a message delivered again).
   */
  take(body: Buffer, count: boolean): Step[] {
    const steps: Step[] = [];
    this.metrics.received(Date.now());
    for (const e of parseBody(body, this.limits())) {
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
      if (this.writer) steps.push(taskStep(e, this.metrics.taskInfo(e.uuid)));
      if (count) this.metrics.task(e);
    }
    return steps;
  }

  /** Counts a body set aside before it was read (too large), as `take` counts what it skips. */
  skip(reason: 'too_large' | 'malformed'): void {
    this.metrics.skipped.inc({ reason });
  }

  /**
   * Stores the steps. Steps that PostgreSQL refuses as such (it would refuse them again) are
   * written one by one so that only those are set aside, counted, and never block the stream.
   */
  async write(steps: Step[]): Promise<void> {
    if (!this.writer || steps.length === 0) return;
    const all = await this.writer.writeSteps(steps);
    if (all.kind === 'stored') return;
    if (all.kind !== 'refused') throw new Error(all.message);
    for (const step of steps) {
      const one = await this.writer.writeSteps([step]);
      if (one.kind === 'stored') continue;
      if (one.kind !== 'refused') throw new Error(one.message);
      this.metrics.skipped.inc({ reason: 'store_rejected' });
      this.log.warn({ err: one.message }, 'celery: a task event was set aside');
    }
  }
}
