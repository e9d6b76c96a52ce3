// Daily partitions of journey_steps: created on demand before a write, dropped whole when they
// fall out of the retention window.
import type pg from 'pg';

const DAY_MS = 86_400_000;
const LOCK_KEY = 7_461_200_003;
const NAME = /^journey_steps_p(\d{4})(\d{2})(\d{2})$/;

const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const suffix = (dayMs: number) => new Date(dayMs).toISOString().slice(0, 10).replace(/-/g, '');

export class Partitions {
  private readonly known = new Set<number>();

  constructor(private readonly pool: pg.Pool) {}

  /** Makes sure a partition exists for each day in which one of `timesUs` falls. */
  async ensure(timesUs: Iterable<number>): Promise<void> {
    const missing = new Set<number>();
    for (const us of timesUs) {
      const day = dayStart(us / 1000);
      if (!this.known.has(day)) missing.add(day);
    }
    if (missing.size === 0) return;
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      await db.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      for (const day of missing) {
        // Names and bounds are generated from integers, never from input text.
        const from = new Date(day).toISOString();
        const to = new Date(day + DAY_MS).toISOString();
        await db.query(
          `CREATE TABLE IF NOT EXISTS journey_steps_p${suffix(day)} PARTITION OF journey_steps
             FOR VALUES FROM ('${from}') TO ('${to}')`,
        );
      }
      await db.query('COMMIT');
      for (const day of missing) this.known.add(day);
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      db.release();
    }
  }

  /** Drops the partitions whose whole day ended before `retentionDays` ago; returns their names. */
  async dropExpired(retentionDays: number, nowMs = Date.now()): Promise<string[]> {
    const horizon = dayStart(nowMs - retentionDays * DAY_MS);
    const res = await this.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
         JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.relname = 'journey_steps'`,
    );
    const dropped: string[] = [];
    for (const { name } of res.rows) {
      const m = NAME.exec(name);
      if (!m) continue;
      const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      if (day + DAY_MS > horizon) continue;
      await this.pool.query(`DROP TABLE IF EXISTS ${name}`);
      this.known.delete(day);
      dropped.push(name);
    }
    return dropped;
  }
}
