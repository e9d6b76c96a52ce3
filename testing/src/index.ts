// acktrail's test harness, shared by every workspace's integration tests (`*.int.test.ts`): each
// test file gets a database and a vhost of its own on the shared local services, so files can
// run side by side.
export { waitFor } from './wait.js';
export { freePort } from './ports.js';
export * from './services.js';
export { RoleProcess, REPO_ROOT, type LogLine } from './processes.js';
export { launchChromium } from './chromium.js';
export { cleanUp } from './cleanup.js';
export { heapAfterGc, memoryAfterGc } from './heap.js';
// Services a test starts for itself, and ways to make a real one misbehave.
export * from './prometheus.js';
export * from './victoria-metrics.js';
export * from './pgbouncer.js';
export * from './cluster.js';
export * from './replica.js';
export * from './fault-proxy.js';
export * from './round-robin.js';
export * from './tcp-gate.js';
export * from './redis.js';
