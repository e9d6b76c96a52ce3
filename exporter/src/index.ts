// Public surface of the exporter package.
export { loadConfig, ConfigError, type ValidatedConfig } from './config.js';
export { createExporter, type Exporter } from './server.js';
export type { Collector } from './collectors/runner/collector.js';
export { VERSION } from './version.js';
export { METRICS } from './metrics/catalogue.js';
export type { MetricSpec, MetricType } from './metrics/spec.js';
export type { Journey } from './api/types.js';
export type { JourneyKind, TimelineEntry } from './journeys/assemble/assemble.js';
export type { CoverageReport, CoverageRow, CoverageGap } from './journeys/coverage.js';
export type {
  DeadLetter,
  Group as DeadLetterGroup,
  AuditEntry,
} from './deadletters/store/store.js';
export type { ReplayResult, ReplayPlan } from './deadletters/replay/replay.js';
export type { PlannedTarget } from './deadletters/replay/planned.js';
export type { Job as ReplayJob } from './deadletters/replay/jobs.js';
export type { Death } from './deadletters/model/message.js';
export type { QueueSummary } from './collectors/rabbitmq/board.js';
export type { LookupAnswer } from './pipeline/lookups.js';
