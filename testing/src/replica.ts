// The journey store with a streaming replica of scripts/pg-replica.sh, for the tests of the
// API's read replica: started (or found running) on first use; a database made on the primary
// is on the replica as soon as it has replayed it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { REPO_ROOT } from './processes.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts/pg-replica.sh');
const PRIMARY = 'postgres://acktrail:acktrail@127.0.0.1:5434';
const REPLICA = 'postgres://acktrail:acktrail@127.0.0.1:5433';

const replica = async (command: string) => {
  await run('bash', [SCRIPT, command], { timeout: 300_000 });
};
export const ensureReplica = () => replica('ensure');
export const stopReplica = () => replica('stop');
export const startReplica = () => replica('start');
/** The replica receives WAL and applies none: it falls behind. */
export const pauseReplay = () => replica('pause');
export const resumeReplay = () => replica('resume');
/** The primary restarted (fast): every connection to it ended, as a failover or an upgrade does. */
export const restartPrimary = () => replica('restart-primary');

export interface ReplicatedDatabase {
  primaryUrl: string;
  replicaUrl: string;
  drop(): Promise<void>;
}

async function admin<T>(base: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: `${base}/postgres` });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A new database on the primary, once the replica has it too. */
export async function createReplicatedDatabase(): Promise<ReplicatedDatabase> {
  const name = `acktrail_replica_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin(PRIMARY, (c) => c.query(`CREATE DATABASE "${name}"`));
  await waitFor('the database on the replica', () =>
    admin(REPLICA, async (c) =>
      Boolean((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount),
    ),
  );
  return {
    primaryUrl: `${PRIMARY}/${name}`,
    replicaUrl: `${REPLICA}/${name}`,
    // FORCE ends the other sessions, but only those of roles this one may signal: a session of
    // another role still closing (once in CI, 42501) is waited for, bounded, then dropped.
    drop: () =>
      waitFor(
        `database ${name} dropped`,
        () =>
          admin(PRIMARY, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
            () => true,
            (err: unknown) => {
              if ((err as { code?: string }).code === '42501') return false;
              throw err;
            },
          ),
        { timeoutMs: 30_000, intervalMs: 500 },
      ).then(() => undefined),
  };
}
