// The reference pipeline's test database: a database of the test's own (@acktrail/testing), with
// the pipeline's schema migrated unless asked otherwise.
import { createTestDatabase as createDatabase, type TestDatabase } from '@acktrail/testing';
import { migrate } from '../db/migrate.js';

export function createTestDatabase(
  prefix = 'acktrail_test',
  migrations = true,
): Promise<TestDatabase> {
  return createDatabase(prefix, migrations ? migrate : null);
}
