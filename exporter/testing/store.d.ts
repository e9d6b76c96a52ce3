export { Partitions, StepReads, StepStore, migrateStore } from '../src/journeys/store/index.js';
export { PUBLISH_COUNTS } from '../src/journeys/store/write-queries.js';
