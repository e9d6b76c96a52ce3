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
