import type { Pool } from '../db/pool.js';
import type { TimedRow, WatermarkCursor } from './watermark.js';

/** Rows read per run at most; a backlog is caught up over the following scrapes. */
export const BATCH_LIMIT = 50_000;

/**
 * Runs an incremental query ($1 = since, $2 = limit) and returns the rows not counted yet. On the
 * first run it only initialises the cursor at the database's clock and returns nothing.
 */
export async function readNewRows<R extends TimedRow>(
  pool: Pool,
  cursor: WatermarkCursor,
  sql: string,
): Promise<R[]> {
  if (!cursor.initialised) {
    const now = (await pool.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
    const existing = await pool.query<R>(sql, [cursor.sinceFor(now), BATCH_LIMIT]);
    cursor.initialise(now, existing.rows);
    return [];
  }
  const res = await pool.query<R>(sql, [cursor.since(), BATCH_LIMIT]);
  return cursor.accept(res.rows);
}
