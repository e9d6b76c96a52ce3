// The OTLP trace receiver's core on the exporter's loop: its gate (gate.ts: the token, the
// in-flight budget, decoding), and the store write with what depends on the broker (the queues'
// facts, learnt first where spans name a queue the topology lacks), for the transports on this
// loop (route.ts, grpc.ts) and for what the ingest thread decoded (thread/main.ts). Each transport
// reads its body its own way, then asks the gate for an Outcome and answers it in its own terms
// (HTTP status or gRPC status code); what is refused, stored or rejected is decided here only.
import type { Logger } from '../log.js';
import { errorMessage } from '../log.js';
import type { JourneyMetrics, RefusalReason } from '../journeys/metrics.js';
import type { QueueLookup } from '../broker/topology.js';
import { StepsRefusedError, StoreBusyError } from '../journeys/store/index.js';
import type { JourneyStore } from '../journeys/store/index.js';
import type { Coverage } from './coverage.js';
import { ATTR } from '@acktrail/conventions';
import { ByteBudget } from './budget.js';
import type { BodyDecoder } from './decoder.js';
import { withQueueAnomalies } from '../journeys/spans/index.js';
import type { ExchangeIndex } from '../broker/routes.js';
import { applyDeliveryLimits, limitedReturns } from '../journeys/model/index.js';
import type { Converted } from '../journeys/spans/index.js';
import { Gate, type IngestLimits, type Outcome, type StoreState } from './gate.js';
import type { MemoryBudget } from '../runtime/memory.js';
import type { Health } from '../runtime/health.js';
import type { SettleWatch } from '../journeys/settle-watch.js';

export type { IngestLimits, Outcome };

export interface IngestOptions {
  store: JourneyStore | null;
  metrics: JourneyMetrics;
  log: Logger;
  limits: IngestLimits;
  retentionDays: number;
  /** With a token, a request needs `Bearer <token>` (refused otherwise). */
  ingestToken: string | null;
  /** False once the exporter is shutting down: requests that still arrive are refused. */
  accepting: () => boolean;
  /** The exporter's memory budget: over it, requests are refused (503 / UNAVAILABLE). */
  memory?: MemoryBudget;
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
  /** Decodes bodies; large ones in worker threads. */
  decoder: BodyDecoder;
  /** Where a failure that must not fail the request is counted (acktrail_background_errors_total). */
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
function namedQueues(steps: readonly Converted['steps'][number][]): Set<string> {
  const names = new Set<string>();
  for (const step of steps) {
    if (step.stage !== 'deliver' && step.stage !== 'settle') continue;
    const queue = step.attrs[ATTR.queue];
    if (typeof queue === 'string' && queue !== '') names.add(queue);
  }
  return names;
}

export class Ingest {
  /** What the transports on this loop use (route.ts, grpc.ts). */
  readonly gate: Gate;

  constructor(readonly opts: IngestOptions) {
    const budget = new ByteBudget(opts.limits.maxInflightBytes, (inUse) => {
      opts.metrics.inflightBytes.set(inUse);
    });
    opts.memory?.onChange((over) => {
      budget.setOverMemory(over);
    });
    this.gate = new Gate(opts.limits, budget, opts.decoder, opts, {
      state: () => ({
        accepting: this.accepting,
        store: this.store,
        overMemory: opts.memory?.over ?? false,
      }),
      refused: (reason) => {
        this.countRefused(reason);
      },
      unreadable: () => {
        this.countUnreadable();
      },
      accept: (converted) => this.accept(converted),
    });
  }

  /** The journey store, as admission sees it. */
  get store(): StoreState {
    const store = this.opts.store;
    return !store ? 'none' : store.ready ? 'ready' : 'starting';
  }

  /** Whether the exporter still takes requests. */
  get accepting(): boolean {
    return this.opts.accepting();
  }

  /** A request refused (here, or on the ingest thread), by reason. */
  countRefused(reason: RefusalReason): void {
    this.opts.metrics.refused.inc({ reason });
  }

  /** A body that could not be read at all: one rejected span, as OTLP has no count. */
  countUnreadable(): void {
    this.opts.metrics.spansReceived.inc({ outcome: 'rejected' });
  }

  private refuse(reason: RefusalReason, message: string): Outcome {
    this.countRefused(reason);
    return { kind: 'refused', reason, message };
  }

  /** Stores what a body was decoded into (here, or on the ingest thread: thread/). */
  async accept(converted: Converted): Promise<Outcome> {
    const { opts } = this;
    const store = opts.store;
    if (!store) throw new Error('ingest without a store: admit() first');
    const { steps, accepted, ignored } = converted;
    opts.coverage?.add(converted.coverage);
    await opts.topology?.learn(namedQueues(steps), LEARN_WAIT_MS, converted.sender);
    if (opts.queues) withQueueAnomalies(steps, opts.queues, opts.exchanges?.() ?? null);
    let result;
    try {
      // A return past a quorum queue's delivery limit is a dead letter: the returns stored before
      // it decide which one is (only when a write has returns to such a queue).
      const queues = opts.queues ?? (() => null);
      const returns = limitedReturns(steps, queues);
      if (returns.length > 0)
        applyDeliveryLimits(steps, await store.steps.storedReturns(returns), queues);
      result = await store.steps.write(steps);
    } catch (err) {
      if (err instanceof StoreBusyError)
        return this.refuse('store_busy', `${err.message}; retry later`);
      if (err instanceof StepsRefusedError) {
        opts.metrics.spansReceived.inc({ outcome: 'rejected' }, converted.spans);
        return { kind: 'invalid', tooLarge: false, message: err.message };
      }
      // Logged once per change of state by the store (Health); per request only at debug.
      opts.log.debug({ err: errorMessage(err), steps: steps.length }, 'journey store write failed');
      return this.refuse('store_unavailable', 'the journey store is unavailable; retry later');
    }
    const rejected = converted.rejected.reduce((n, [, count]) => n + count, 0);
    this.count(() => {
      const index = opts.exchanges?.() ?? null;
      opts.watch?.noteSteps(
        result.inserted.map((i) => i.step),
        (exchange, key) => index?.reached(exchange, key) ?? [],
      );
      opts.metrics.observe(result);
      opts.metrics.thresholdsRefused.inc(converted.thresholdsRefused);
      opts.metrics.spansReceived.inc({ outcome: 'accepted' }, accepted);
      opts.metrics.spansReceived.inc({ outcome: 'ignored' }, ignored);
      opts.metrics.spansReceived.inc({ outcome: 'rejected' }, rejected);
    });
    const message = converted.rejected.map(([r, n]) => `${n} span(s): ${r}`).join('; ');
    return { kind: 'stored', rejected, message };
  }

  /**
   * Counts what a committed write stored. The steps are in the store: nothing here may turn the
   * answer into a refusal or an error, so a failure is logged and counted, never thrown.
   */
  private count(counting: () => void): void {
    try {
      counting();
    } catch (err) {
      this.opts.health?.error('journey_metrics', err, 'counting a stored write failed');
    }
  }
}
