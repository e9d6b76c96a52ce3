// The APIs on the main listener, wired from the configuration: coverage, queues, journeys and
// dead letters, each behind its token (api/auth.ts). server.ts calls this once.
import type express from 'express';
import type { ValidatedConfig } from '../config.js';
import type { QueueLookup } from '../broker/topology.js';
import type { QueueBoard } from '../collectors/index.js';
import type { ReadOnlyPools } from '../db/pool.js';
import type { Parking } from '../deadletters/index.js';
import { PipelineReader } from '../pipeline/rows.js';
import type { JourneyStore } from '../journeys/store/index.js';
import type { Coverage } from '../receiver/coverage.js';
import type { Logger } from '../log.js';
import { coverageRouter } from './coverage.js';
import { deadLettersRouter } from './dead-letters.js';
import { eventsRouter } from './events.js';
import { queuesRouter } from './queues.js';

/** Journey API reads of the pipeline's rows end after this long. */
const PIPELINE_READ_TIMEOUT_MS = 5000;

export interface ApiSources {
  store: JourneyStore | null;
  /** The pipeline's database, read-only; null without DATABASE_URL. */
  pools: ReadOnlyPools | null;
  /** The RabbitMQ collectors' board (null: rabbitmq is off). */
  board: QueueBoard | null;
  queues: QueueLookup;
  parking: Parking | null;
  coverage: Coverage;
  log: Logger;
}

export function mountApis(app: express.Express, config: ValidatedConfig, s: ApiSources): void {
  const { store, pools, parking, queues, log } = s;
  const tokens = { read: config.apiToken, operate: config.operatorToken };
  const { journeys } = config;
  app.use(coverageRouter({ tokens, coverage: s.coverage }));
  app.use(queuesRouter({ tokens, board: s.board }));
  app.use(
    eventsRouter({
      tokens,
      words: journeys.words,
      store,
      lists: {
        maxConcurrentPerToken: journeys.maxConcurrentListsPerToken,
        retentionDays: journeys.retentionDays,
      },
      pipeline: pools ? new PipelineReader(pools.create(PIPELINE_READ_TIMEOUT_MS), config) : null,
      parked: parking ? (ids) => parking.store.ofEvents(ids) : null,
      assemble: {
        stuckAfterSeconds: journeys.stuckAfterSeconds,
        unackedAfterSeconds: journeys.unackedAfterSeconds,
        failedStatus: config.confirmations?.aggregates.failedValue ?? null,
        words: journeys.words,
        queues,
      },
      log,
    }),
  );
  app.use(
    deadLettersRouter({
      tokens,
      parking: parking && {
        store: parking.store,
        replayer: parking.replayer,
        jobs: parking.jobs,
        ready: () => store?.ready ?? false,
      },
      maxMessages: config.deadLetters.replay.maxMessages,
      maxConcurrentReadsPerToken: config.deadLetters.maxConcurrentReadsPerToken,
      log,
    }),
  );
}
