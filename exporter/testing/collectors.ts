// The SQL collectors and their read-only pool, driven directly by the SQL bench:
// @acktrail/exporter/testing/collectors.
export type { Collector } from '../src/collectors/runner/collector.js';
export { AggregatesCollector } from '../src/collectors/sql/aggregates.js';
export { ConfirmationsCollector } from '../src/collectors/sql/confirmations.js';
export { OutboxCollector } from '../src/collectors/sql/outbox.js';
export { createReadOnlyPool } from '../src/db/pool.js';
