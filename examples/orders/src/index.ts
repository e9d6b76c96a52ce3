// Public surface of the reference pipeline, for the exporter's tests and the demo.
export { loadConfig, ConfigError, type Config } from './config.js';
export { migrate, MIGRATIONS_DIR } from './db/migrate.js';
export * as topology from './broker/topology.js';
export { snapshotDatabase, restoreDatabase, dropDatabase } from './faults/restore.js';
export { runLoad, formatProgress, type LoadOptions, type LoadProgress } from './loadgen/loadgen.js';
