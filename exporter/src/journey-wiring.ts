// The journeys' side of the exporter's wiring (server.ts): the one read path (JourneyService
// over the store, the pipeline's rows, parking's records and Celery's tasks) and the dead letters
// counted from parking where no span records the reject.
import type { ValidatedConfig } from './config.js';
import type { ReadOnlyPools } from './db/pool.js';
import type { TopologyRefresh } from './broker/refresh.js';
import type { QueueLookup } from './broker/topology.js';
import type { JourneyMetrics } from './journeys/metrics.js';
import type { WatchedDeadLetters } from './journeys/model/index.js';
import type { SettleWatch } from './journeys/settle-watch.js';
import type { JourneyStore } from './journeys/store/index.js';
import { JourneyService } from './journeys/service.js';
import { PipelineReader } from './pipeline/rows.js';
import { celeryJourneys } from './celery/journeys.js';
import type { Parking } from './deadletters/index.js';

/** What the journeys' wiring reads of the exporter's sources (server.ts). */
export interface JourneySources {
  pools: ReadOnlyPools | null;
  store: JourneyStore | null;
  topology: TopologyRefresh | null;
  queues: QueueLookup;
  watch: SettleWatch;
  metrics: JourneyMetrics;
}

/** Journey API reads of the pipeline's rows end after this long. */
const PIPELINE_READ_TIMEOUT_MS = 5000;

/**
 * A dead letter of a queue whose consumers' spans record no reject (or that no traced consumer
 * reads) is counted from parking's x-death, as a span would have counted it
 * (acktrail_messages_rejected_total). Decided SPANS_LATE_MS after parking: a recording consumer's
 * spans of the same reject reach acktrail within its exporter's batch delay.
 */
export function countInferredDeadLetters(
  parking: Parking,
  { watch, metrics }: Pick<JourneySources, 'watch' | 'metrics'>,
): void {
  parking.onParked((row) => {
    const death = row.deaths[0];
    if (death?.reason !== 'rejected' && death?.reason !== 'delivery_limit') return;
    setTimeout(() => {
      if (!watch.recordsRejects(death.queue)) metrics.inferredDeadLetter(death.queue);
    }, SPANS_LATE_MS).unref();
  });
}

/** How long a consumer's spans may trail the broker (OTel SDKs export in 5 s batches). */
const SPANS_LATE_MS = 10_000;

/**
 * Where a queue's dead letters would reach acktrail: a dead-letter queue it parks, or one a
 * traced consumer reads (journeys/model/inference.ts).
 */
function watchedDeadLetters(
  { topology, watch }: Pick<JourneySources, 'topology' | 'watch'>,
  parking: Parking | null,
): (queue: string) => WatchedDeadLetters | null {
  return (queue) => {
    const t = topology?.current;
    const facts = t?.queue(queue);
    if (!t || !facts) return null;
    const parked = new Set(parking?.broker.queues() ?? []);
    for (const target of t.deadLetterTargets(facts.vhost, queue) ?? []) {
      if (parked.has(target)) return { queue: target, by: 'parking' };
      if (watch.isTraced(target)) return { queue: target, by: 'traced' };
    }
    return null;
  };
}

/**
 * The read path, built once: the store's queries, the pipeline's rows, dead-letter parking's
 * records and Celery's task journeys (null without a store).
 */
export function readPath(
  config: ValidatedConfig,
  src: JourneySources,
  parking: Parking | null,
): JourneyService<unknown> | null {
  const { store, pools, queues } = src;
  if (!store) return null;
  const { journeys } = config;
  return new JourneyService({
    queries: store.queries,
    settle: {
      readings: (names, fromMs, toMs) => store.readings.around(names, fromMs, toMs),
      watched: watchedDeadLetters(src, parking),
      route: (exchange, key) => src.topology?.current.exchangeIndex.reached(exchange, key) ?? [],
      boundMs: journeys.settleEvidenceSeconds * 1000,
    },
    pipeline: pools ? new PipelineReader(pools.create(PIPELINE_READ_TIMEOUT_MS), config) : null,
    parked: parking ? (ids) => parking.store.ofEvents(ids) : null,
    reader: store.reads,
    parkedOfGroup: parking
      ? (group, sinceMs, untilMs, cursor, n) =>
          parking.store.journeysOfGroup(group, sinceMs, untilMs, cursor, n)
      : null,
    celery: celeryJourneys(store.reads),
    assemble: {
      stuckAfterSeconds: journeys.stuckAfterSeconds,
      unackedAfterSeconds: journeys.unackedAfterSeconds,
      failedStatus: config.confirmations?.aggregates.failedValue ?? null,
      words: journeys.words,
      queues,
    },
    retentionDays: journeys.retentionDays,
  });
}
