// The journey store's one way in (exporter/src/architecture.test.ts checks that nothing outside
// journeys/store/ imports past it). What lives behind it:
//   journey-store.ts  JourneyStore, the part: migrations, health, partitions, its pools
//   from-config.ts    the JourneyStore the configuration describes
//   step-store.ts     StepStore, the writes (group commit; staged-rows.ts, write-queries.ts)
//   pools.ts          its connections: writes, the primary's reads, a replica's, maintenance
//   step-reads.ts     StepReads, the reads of steps: one event's, lists of events, traces
//   queue-heads.ts    the oldest publish towards a queue not delivered from it yet
//   queue-readings.ts the broker's counters of queues whose consumers record no settle
//   search-steps.ts   the journeys whose steps match a list's filters, and their count
//   replica.ts        where reads go: the primary or a streaming replica
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
  StepReads,
  MAX_STEPS,
  type Cursor,
  type EventSummary,
  type TraceStep,
  aggregateSteps,
  latestTraces,
} from './step-reads.js';
export { queueHead, type QueueRoutes } from './queue-heads.js';
export { QueueReadings, type QueueReading } from './queue-readings.js';
export { COUNT_CAP, countEvents, searchEventIds, type StepFilter } from './search-steps.js';
export { ReplicaReads, type Reader, type ReplicaStatus } from './replica.js';
export { MIGRATIONS_DIR, migrateStore } from './migrate.js';
export { Partitions } from './partitions.js';
export { DAY_MS } from './event-days.js';
