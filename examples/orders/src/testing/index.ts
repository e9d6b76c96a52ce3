export { waitFor } from './wait.js';
export { freePort } from './ports.js';
export * from './services.js';
export { RoleProcess, startRole, REPO_ROOT, type LogLine } from './processes.js';
export { TestPipeline, type Role } from './pipeline.js';
