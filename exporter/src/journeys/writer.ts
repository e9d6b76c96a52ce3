// The one journey write path, beside the read path (service.ts): what a batch of converted spans
// becomes once a receiver has admitted it. It learns the queues the spans name that the broker's
// topology lacks (an early refresh, waited for a bounded time), decides the steps' fates from the
// queues' facts (dead-letter exchange, delivery limits), writes them (the store's group commit)
// and, after the commit, derives the journey metrics and tells the settle watch. A receiver hands
// it a batch and maps the outcome to its transport's status, as the OpenTelemetry Collector's
// receivers hand a batch to their next consumer; Celery's intake and dead-letter replays write
// their steps through it too.
import { ATTR } from '@acktrail/conventions';
import type { Logger } from '../log.js';
import { errorMessage } from '../log.js';
import type { QueueLookup } from '../broker/topology.js';
import type { ExchangeIndex } from '../broker/routes.js';
import type { Health } from '../runtime/health.js';
import type { Coverage } from './coverage.js';
import type { JourneyMetrics } from './metrics.js';
import { applyDeliveryLimits, limitedReturns } from './model/index.js';
import type { Step } from './model/steps.js';
import type { SettleWatch } from './settle-watch.js';
import { withQueueAnomalies, type Converted } from './spans/index.js';
import {
  StepsRefusedError,
  StoreBusyError,
  type JourneyStore,
  type WriteResult,
} from './store/index.js';

/**
 * What became of a write. `stored`: committed, with the spans by outcome (the receiver reports
 * them); `busy`: the store's write queue is full (retry later); `refused`: the store refuses
 * these steps as such (it would again); `unavailable`: the store failed the write (retry later).
 */
export type WriteOutcome =
  | { kind: 'stored'; accepted: number; ignored: number; rejected: number; message: string }
  | { kind: 'busy'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'unavailable'; message: string };

export interface JourneyWriterOptions {
  store: JourneyStore;
  metrics: JourneyMetrics;
  log: Logger;
  /** What the exporter knows about a queue: a reject's anomaly depends on its dead-letter exchange. */
  queues?: QueueLookup;
  /** Which queues an exchange routes to: the queue of a delivery whose span names none. */
  exchanges?: () => ExchangeIndex | null;
  /**
   * The broker topology's refresh: a queue the spans name that it does not know yet brings a
   * refresh forward, and the write waits for it (at most LEARN_WAIT_MS) before fates are decided.
   */
  topology?: {
    learn(names: Iterable<string>, ms: number, sender?: string): Promise<void>;
  } | null;
  /** Counts what every span lets journeys read (GET /api/coverage). */
  coverage?: Coverage;
  /** Where a failure that must not fail the write is counted (acktrail_background_errors_total). */
  health?: Health;
  /** Told each stored delivery's queue: the queues whose settles the broker's evidence decides. */
  watch?: SettleWatch;
}

/**
 * How long a write waits for the broker's facts about a queue it names first: a refresh of a few
 * hundred queues takes tens of milliseconds. Past it, the step's fate is stored as not known, and
 * the journey decides it again from the topology of the moment it is read.
 */
export const LEARN_WAIT_MS = 2000;

/** The queues deliveries and settles name: what their fates are decided by. */
function namedQueues(steps: readonly Step[]): Set<string> {
  const names = new Set<string>();
  for (const step of steps) {
    if (step.stage !== 'deliver' && step.stage !== 'settle') continue;
    const queue = step.attrs[ATTR.queue];
    if (typeof queue === 'string' && queue !== '') names.add(queue);
  }
  return names;
}

export class JourneyWriter {
  constructor(private readonly opts: JourneyWriterOptions) {}

  /** Whether the store's schema is in place: writes can be tried. */
  ready(): boolean {
    return this.opts.store.ready;
  }

  /** Resolves once the store's schema is in place. */
  whenReady(): Promise<void> {
    return this.opts.store.whenReady();
  }

  /** Writes what a receiver decoded from one request. */
  async write(converted: Converted): Promise<WriteOutcome> {
    const { opts } = this;
    const { steps } = converted;
    opts.coverage?.add(converted.coverage);
    await opts.topology?.learn(namedQueues(steps), LEARN_WAIT_MS, converted.sender);
    if (opts.queues) withQueueAnomalies(steps, opts.queues, opts.exchanges?.() ?? null);
    const written = await this.store(steps, true);
    if (!('inserted' in written)) return written;
    const rejected = converted.rejected.reduce((n, [, count]) => n + count, 0);
    this.count(() => {
      opts.metrics.thresholdsRefused.inc(converted.thresholdsRefused);
    });
    return {
      kind: 'stored',
      accepted: converted.accepted,
      ignored: converted.ignored,
      rejected,
      message: converted.rejected.map(([r, n]) => `${n} span(s): ${r}`).join('; '),
    };
  }

  /**
   * Writes steps made elsewhere than from spans (Celery's task events, a replay's step): the
   * same store write and outcomes; they derive no span metrics.
   */
  async writeSteps(steps: Step[]): Promise<WriteOutcome> {
    const written = await this.store(steps, false);
    if (!('inserted' in written)) return written;
    return { kind: 'stored', accepted: steps.length, ignored: 0, rejected: 0, message: '' };
  }

  private async store(
    steps: Step[],
    fromSpans: boolean,
  ): Promise<WriteResult | Exclude<WriteOutcome, { kind: 'stored' }>> {
    const { opts } = this;
    let result: WriteResult;
    try {
      // A return past a quorum queue's delivery limit is a dead letter: the returns stored before
      // it decide which one is (only when a write has returns to such a queue).
      const queues = opts.queues ?? (() => null);
      const returns = limitedReturns(steps, queues);
      if (returns.length > 0)
        applyDeliveryLimits(steps, await opts.store.steps.storedReturns(returns), queues);
      result = await opts.store.steps.write(steps);
    } catch (err) {
      if (err instanceof StoreBusyError) return { kind: 'busy', message: err.message };
      if (err instanceof StepsRefusedError) return { kind: 'refused', message: err.message };
      // Logged once per change of state by the store (Health); per write only at debug.
      opts.log.debug({ err: errorMessage(err), steps: steps.length }, 'journey store write failed');
      return { kind: 'unavailable', message: 'the journey store is unavailable' };
    }
    if (fromSpans)
      this.count(() => {
        const index = opts.exchanges?.() ?? null;
        opts.watch?.noteSteps(
          result.inserted.map((i) => i.step),
          (exchange, key) => index?.reached(exchange, key) ?? [],
        );
        opts.metrics.observe(result);
      });
    return result;
  }

  /**
   * Counts what a committed write stored. The steps are in the store: nothing here may turn the
   * outcome into a refusal or an error, so a failure is logged and counted, never thrown.
   */
  private count(counting: () => void): void {
    try {
      counting();
    } catch (err) {
      this.opts.health?.error('journey_metrics', err, 'counting a stored write failed');
    }
  }
}
