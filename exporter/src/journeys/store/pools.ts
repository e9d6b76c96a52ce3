// The journey store's connections, made in one place: what each pool is for, how big it is and
// which session settings it carries. Reads never starve writes (a pool apart), a replica that
// goes away is the reads' concern (replica.ts falls back), and maintenance runs on the direct URL
// when the store is reached through a transaction pooler.
import pg from 'pg';
import { SessionPool, type Pooler } from '../../db/session.js';

export interface PoolOptions {
  url: string;
  /** The store reached directly: partition drops (null: url). */
  migrateUrl: string | null;
  /** How `url` reaches PostgreSQL: directly, or through a transaction pooler (db/session.ts). */
  pooler: Pooler;
  /** A streaming replica for reads; null: reads go to the primary. */
  readUrl: string | null;
  /** Connections of the primary's read pool (the API's reads). */
  readPoolSize: number;
  /** Every statement of the writes' and reads' pools. */
  statementTimeoutMs: number;
  /** How long a write waits for a lock before it fails. */
  lockTimeoutMs: number;
}

export interface StorePools {
  /** The writes (group commit), the dead letters' parking and the store's checks. */
  writes: pg.Pool;
  /** The API's reads on the primary, and the dead letters' (their state lives there). */
  primaryReads: pg.Pool;
  /** The replica's reads; null without one. */
  replica: pg.Pool | null;
  /** Sessions of their own on migrateUrl (partition drops); null: the writes' pool does it. */
  maintenance: pg.Pool | null;
  end(): Promise<void>;
}

/** A lost idle connection (a restart of PostgreSQL) is an error event on its pool, not a crash. */
export type PoolErrors = (err: Error, what: string) => void;

export function openPools(o: PoolOptions, lost: PoolErrors): StorePools {
  const pool = (url: string, max: number, name: string, timeoutMs = 5000) => ({
    connectionString: url,
    max,
    connectionTimeoutMillis: timeoutMs,
    application_name: name,
  });
  const statements = { statementTimeoutMs: o.statementTimeoutMs };
  const writes = new SessionPool(pool(o.url, 6, 'acktrail-journeys'), o.pooler, {
    ...statements,
    lockTimeoutMs: o.lockTimeoutMs,
  });
  writes.on('error', (err) => {
    lost(err, 'journey store connection lost');
  });
  const primaryReads = new SessionPool(
    pool(o.url, o.readPoolSize, 'acktrail-journeys-api'),
    o.pooler,
    statements,
  );
  primaryReads.on('error', (err) => {
    lost(err, 'journey store read connection lost');
  });
  const replica = o.readUrl
    ? new SessionPool(pool(o.readUrl, 6, 'acktrail-journeys-read', 2000), o.pooler, statements)
    : null;
  replica?.on('error', () => undefined);
  const maintenance = o.migrateUrl
    ? new pg.Pool(pool(o.migrateUrl, 1, 'acktrail-maintenance'))
    : null;
  maintenance?.on('error', (err) => {
    lost(err, 'journey store maintenance connection lost');
  });
  return {
    writes,
    primaryReads,
    replica,
    maintenance,
    async end() {
      await writes.end();
      await primaryReads.end();
      await replica?.end();
      await maintenance?.end();
    },
  };
}
