// The journey store's parts that tests and benches drive directly (a store migrated by hand, its
// partitions, its reads and writes, the statement the day-fill bench explains): the package face
// @acktrail/exporter/testing/store.
export { Partitions, StepReads, StepStore, migrateStore } from '../src/journeys/store/index.js';
export { PUBLISH_COUNTS } from '../src/journeys/store/write-queries.js';
export { CREATE_STAGING_TABLE, copyRows } from '../src/journeys/store/staged-rows.js';
export { JOURNEY_STARTS } from '../src/journeys/store/write-queries.js';
