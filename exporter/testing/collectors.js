export { AggregatesCollector } from '../src/collectors/sql/aggregates.js';
export { ConfirmationsCollector } from '../src/collectors/sql/confirmations.js';
export { OutboxCollector } from '../src/collectors/sql/outbox.js';
export { createReadOnlyPool } from '../src/db/pool.js';
//# sourceMappingURL=collectors.js.map