// The reference pipeline's test harness (the generic one is @acktrail/testing): a database with the
// pipeline's schema, its roles as processes and the whole pipeline for one test file.
export { createTestDatabase } from './services.js';
export { startRole } from './processes.js';
export { TestPipeline, type Role } from './pipeline.js';
