// The journey store as the configuration describes it: its URLs (the primary, a direct one for
// migrations, a read replica), its pooler and the journeys section's bounds.
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from '../../config.js';
import type { Health } from '../../runtime/health.js';
import type { Logger } from '../../log.js';
import { JourneyStore } from './journey-store.js';

export function journeyStore(
  config: ValidatedConfig,
  health: Health,
  log: Logger,
  registry: Registry,
): JourneyStore {
  const j = config.journeys;
  return new JourneyStore(
    {
      url: config.storeUrl!,
      migrateUrl: config.storeMigrateUrl,
      pooler: config.pooler,
      readUrl: config.storeReadUrl,
      maxReadLagSeconds: j.maxReadLagSeconds,
      retentionDays: j.retentionDays,
      maxPendingSteps: j.maxPendingSteps,
      readPoolSize: j.readPoolSize,
      statementTimeoutMs: j.statementTimeoutSeconds * 1000,
      lockTimeoutMs: j.lockTimeoutSeconds * 1000,
      results: j.words.results,
    },
    health,
    log,
    registry,
  );
}
