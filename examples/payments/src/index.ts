// Public surface of the payments example, for acktrail's tests and the demo.
export * as topology from './topology.js';
export { migrate, MIGRATIONS_DIR } from './db.js';
export { derivedId, AUDIT_LIMIT_CENTS } from './consumers.js';
