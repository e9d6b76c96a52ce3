// Daily partitions of journey_steps: created before a write needs them, dropped whole when they
// fall out of the retention window. Neither ever blocks a write or waits behind a long read:
// - a new day is created as a plain table and then attached (ATTACH takes SHARE UPDATE
//   EXCLUSIVE on journey_steps, which inserts and reads do not conflict with; CREATE TABLE ...
//   PARTITION OF would take ACCESS EXCLUSIVE and queue every insert behind a running read);
// - an old day is detached CONCURRENTLY (it waits for the reads that may still see it, while
//   inserts go on) and dropped once it is no longer part of journey_steps.
import type pg from 'pg';
import { withClient, withTransaction } from '../../db/checkout.js';
import { DAY_MS, dropExpiredEvents } from './event-days.js';

const LOCK_KEY = 7_461_200_003;
/** Held (per session) while expired days are dropped: one replica at a time does it. */
const DROP_LOCK_KEY = 7_461_200_004;
const NAME = /^journey_steps_p(\d{4})(\d{2})(\d{2})$/;
/** Days ahead of today that maintenance makes ready, so that writes rarely create one. */
const AHEAD_DAYS = 1;

const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const suffix = (dayMs: number) => new Date(dayMs).toISOString().slice(0, 10).replace(/-/g, '');
const nameOf = (dayMs: number) => `journey_steps_p${suffix(dayMs)}`;

export class Partitions {
  private readonly known = new Set<number>();
  /** Whether expired days' events were forgotten since this process started. */
  private eventsPruned = false;

  /**
   * @param pool the writes' pool: new days are attached in its transactions.
   * @param maintenance connections with a session of their own (a direct one behind a pooler):
   *   dropping holds a session advisory lock and detaches CONCURRENTLY, outside a transaction.
   * @param futureDays a time further ahead than this never gets a partition (bad clocks).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly maintenance: pg.Pool = pool,
    private readonly futureDays = 2,
  ) {}

  /** Makes sure a partition exists for each day in which one of `timesUs` falls. */
  async ensure(timesUs: Iterable<number>, nowMs = Date.now()): Promise<void> {
    const missing = new Set<number>();
    const horizon = dayStart(nowMs) + this.futureDays * DAY_MS;
    for (const us of timesUs) {
      const day = dayStart(us / 1000);
      if (day > horizon)
        throw new RangeError(
          `no partition is made for ${new Date(day).toISOString()}: too far ahead`,
        );
      if (!this.known.has(day)) missing.add(day);
    }
    if (missing.size === 0) return;
    await withTransaction(this.pool, async (db) => {
      await db.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const attached = await this.attachedDays(db);
      for (const day of missing) {
        if (attached.has(day)) continue;
        // Names and bounds are generated from integers, never from input text.
        const name = nameOf(day);
        await db.query(`DROP TABLE IF EXISTS ${name}`); // a table left by an interrupted detach
        await db.query(`CREATE TABLE ${name} (LIKE journey_steps INCLUDING DEFAULTS)`);
        await db.query(
          `ALTER TABLE journey_steps ATTACH PARTITION ${name}
             FOR VALUES FROM ('${new Date(day).toISOString()}') TO ('${new Date(day + DAY_MS).toISOString()}')`,
        );
      }
    });
    for (const day of missing) this.known.add(day);
  }

  /**
   * Summarises the new block ranges of today's partition's BRIN time index (migration 008), so
   * that a search of the last hour skips the rest of the day even where autovacuum does not run.
   * Only the ranges written since the last call are read. Needs the table's owner (the role that
   * migrated the store); a failure is the caller's to ignore (searches read unsummarised ranges).
   */
  async summariseToday(nowMs = Date.now()): Promise<void> {
    await this.pool.query(
      `SELECT brin_summarize_new_values(x.oid)
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_am a ON a.oid = x.relam
        WHERE t.relname = $1 AND a.amname = 'brin'`,
      [nameOf(dayStart(nowMs))],
    );
  }

  /**
   * Analyses today's partition when a tenth of it (and 50 rows) changed since it was last
   * analysed, as autovacuum's defaults would (autovacuum_analyze_threshold, _scale_factor), for
   * a PostgreSQL whose autovacuum is off or has not reached the new day: the write path's plans
   * hold without statistics (write-queries.ts), the searches' and lookups' are priced from them.
   * Returns whether it analysed. Needs the table's owner, as summariseToday does.
   */
  async analyseToday(nowMs = Date.now()): Promise<boolean> {
    const name = nameOf(dayStart(nowMs));
    const res = await this.pool.query<{ due: boolean }>(
      `SELECT s.n_mod_since_analyze >= 50 + 0.1 * greatest(c.reltuples, 0) AS due
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE s.relname = $1 AND s.schemaname = current_schema()`,
      [name],
    );
    if (res.rows[0]?.due !== true) return false;
    // The name is made from integers, never from input text.
    await this.pool.query(`ANALYZE ${name}`);
    return true;
  }

  /** Today's partition and the next days', made ahead of the writes that will need them. */
  async prepareAhead(nowMs = Date.now()): Promise<void> {
    const today = dayStart(nowMs);
    const days = Array.from({ length: AHEAD_DAYS + 1 }, (_, i) => (today + i * DAY_MS) * 1000);
    await this.ensure(days, nowMs);
  }

  /**
   * Drops the partitions whose whole day ended before `retentionDays` ago, and forgets their
   * events (journey_events); returns their names.
   * When another replica is dropping already, does nothing (that one drops them).
   */
  async dropExpired(retentionDays: number, nowMs = Date.now()): Promise<string[]> {
    const horizon = dayStart(nowMs - retentionDays * DAY_MS);
    return withClient(this.maintenance, async (db, discard) => {
      let locked = false;
      try {
        const lock = await db.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
          DROP_LOCK_KEY,
        ]);
        locked = lock.rows[0]?.ok === true;
        if (!locked) return [];
        // A detach waits for every read that may still see the partition (API reads end within
        // their statement timeout); inserts go on meanwhile, so this session may wait that long.
        await db.query('SET statement_timeout = 0; SET lock_timeout = 0');
        return await this.dropBefore(db, horizon);
      } finally {
        // A session that cannot be reset (or unlocked) is not given back to the pool.
        await db
          .query('RESET statement_timeout; RESET lock_timeout')
          .then(() => (locked ? db.query('SELECT pg_advisory_unlock($1)', [DROP_LOCK_KEY]) : null))
          .catch(discard);
      }
    });
  }

  /** Detaches and drops the partitions whose day ended before `horizon`, then their events. */
  private async dropBefore(db: pg.PoolClient, horizon: number): Promise<string[]> {
    const res = await db.query<{ name: string; pending: boolean }>(
      `SELECT c.relname AS name, i.inhdetachpending AS pending FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'journey_steps'::regclass`,
    );
    const dropped: string[] = [];
    for (const { name, pending } of res.rows) {
      const m = NAME.exec(name);
      if (!m) continue;
      const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      if (day + DAY_MS > horizon) continue;
      this.known.delete(day);
      // Outside a transaction block, as CONCURRENTLY requires. A detach that an earlier
      // process began and did not finish is finished instead.
      await db.query(
        `ALTER TABLE journey_steps DETACH PARTITION ${name} ${pending ? 'FINALIZE' : 'CONCURRENTLY'}`,
      );
      await db.query(`DROP TABLE IF EXISTS ${name}`);
      dropped.push(name);
    }
    // Their events go too: after a drop, and once per process (an earlier one may have stopped
    // between the two).
    if (dropped.length > 0 || !this.eventsPruned) {
      await dropExpiredEvents(db, horizon);
      this.eventsPruned = true;
    }
    return dropped;
  }

  private async attachedDays(db: pg.PoolClient): Promise<Set<number>> {
    const res = await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'journey_steps'::regclass AND NOT i.inhdetachpending`,
    );
    const days = new Set<number>();
    for (const { name } of res.rows) {
      const m = NAME.exec(name);
      if (m) days.add(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    }
    return days;
  }
}
