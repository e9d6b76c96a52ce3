// The journey store's one way in (exporter/src/architecture.test.ts checks that nothing outside
// journeys/store/ imports past it). What lives behind it:
//   journey-store.ts  JourneyStore, the part: migrations, health, partitions, its pools
//   from-config.ts    the JourneyStore the configuration describes
//   step-store.ts     StepStore, the writes (group commit; staged-rows.ts, write-queries.ts)
//   queries.ts        StepQueries, the API's reads: one event's steps, lists of events
//   lookups.ts        the reads for others: queue heads, exemplars' traces, a workflow's tasks
//   reads.ts          where reads go: the primary or a streaming replica
//   migrate.ts        the schema's migrations (exporter/migrations/)
//   partitions.ts     daily partitions made ahead and dropped after the retention
export { JourneyStore, PART as STORE_PART } from './journey-store.js';
export { journeyStore } from './from-config.js';
export {
  StepStore,
  StepsRefusedError,
  StoreBusyError,
  type StoredStep,
  type WriteResult,
} from './step-store.js';
export {
  StepQueries,
  MAX_STEPS,
  type Cursor,
  type EventSummary,
  type TraceStep,
} from './queries.js';
export { aggregateSteps, latestTraces, queueHead, type QueueRoutes } from './lookups.js';
export { StoreReads, type Reader, type ReplicaStatus } from './reads.js';
export { MIGRATIONS_DIR, migrateStore } from './migrate.js';
export { Partitions } from './partitions.js';
export { DAY_MS } from './event-days.js';
