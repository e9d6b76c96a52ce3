// The journey store's parts that tests and benches drive directly (a store migrated by hand, its
// partitions, its reads and writes, the statements the day-fill and write-phases benches name,
// COPY text and a COPY of it): the package face @acktrail/exporter/testing/store.
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export { Partitions, StepReads, StepStore, migrateStore } from '../src/journeys/store/index.js';
export { JOURNEY_STARTS, PUBLISH_COUNTS } from '../src/journeys/store/write-queries.js';
export { copyRows } from '../src/journeys/store/staged-rows.js';

/** Sends COPY text by `copy` (a `COPY … FROM STDIN`) on the client; resolves once it is taken. */
export async function copyText(client: pg.Client, copy: string, text: string): Promise<void> {
  const stream = client.query(copyFrom(copy));
  stream.end(text);
  await finished(stream);
}
