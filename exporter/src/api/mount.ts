// The APIs on the main listener, wired from the configuration: coverage, queues, journeys and
// dead letters, each behind its token (api/auth.ts). server.ts calls this once.
import type express from 'express';
import type { ValidatedConfig } from '../config.js';
import type { QueueBoard } from '../collectors/index.js';
import type { Parking } from '../deadletters/index.js';
import type { JourneyService } from '../journeys/service.js';
import type { JourneyStore } from '../journeys/store/index.js';
import type { Coverage } from '../journeys/coverage.js';
import type { Logger } from '../log.js';
import { coverageRouter } from './coverage.js';
import { deadLettersRouter } from './dead-letters.js';
import { eventsRouter } from './events.js';
import { lookupsRouter, type Lookups } from './lookups.js';
import { queuesRouter } from './queues.js';

export interface ApiSources {
  store: JourneyStore | null;
  /** The read path (server.ts builds it once); null without a store. */
  journeys: JourneyService<unknown> | null;
  /** The RabbitMQ collectors' board (null: rabbitmq is off). */
  board: QueueBoard | null;
  parking: Parking | null;
  coverage: Coverage;
  /** Business-key lookups (null: none configured, or no DATABASE_URL). */
  lookups: Lookups | null;
  log: Logger;
}

export function mountApis(app: express.Express, config: ValidatedConfig, s: ApiSources): void {
  const { store, parking, log } = s;
  const tokens = { read: config.apiToken, operate: config.operatorToken };
  const { journeys } = config;
  app.use(coverageRouter({ tokens, coverage: s.coverage }));
  app.use(queuesRouter({ tokens, board: s.board }));
  app.use(
    eventsRouter({
      tokens,
      words: journeys.words,
      store,
      journeys: s.journeys,
      lists: { maxConcurrentPerToken: journeys.maxConcurrentListsPerToken },
      retentionDays: journeys.retentionDays,
      log,
    }),
  );
  app.use(
    lookupsRouter({
      tokens,
      lookups: s.lookups,
      maxConcurrentPerToken: journeys.maxConcurrentListsPerToken,
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
