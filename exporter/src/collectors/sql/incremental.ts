// Runs an incremental query page by page. The query's parameters: $1 the lower bound (a
// timestamptz), $2 the page size, $3 the id after which rows stamped exactly $1 are read; it
// returns `id` and `at` in (at, id) order (docs/metrics.md, "Counting from tables").
import pg from 'pg';
import type { Pool } from '../../db/pool.js';
import type { Keyset, TimedRow, WatermarkCursor } from './watermark.js';

/** Rows per page. */
export const PAGE_ROWS = 50_000;
/** Pages per run at most; a larger backlog is caught up over the following runs. */
export const MAX_PAGES = 10;

const { TIMESTAMPTZ, TIMESTAMP } = pg.types.builtins;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ) as (text: string) => Date;
const defaultParser = pg.types.getTypeParser.bind(pg.types) as (
  oid: number,
  format?: 'text' | 'binary',
) => unknown;
/** `at` arrives as text, so that the next page starts at the exact microsecond. */
const RAW_TIMES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === (TIMESTAMPTZ as number) || oid === (TIMESTAMP as number)
      ? (text: string) => text
      : defaultParser(oid, format)) as typeof pg.types.getTypeParser,
};

type Raw<R> = Omit<R, 'at'> & { at: string };

interface Pages<R> {
  rows: R[];
  /** False when the run stopped at MAX_PAGES with rows left; `last` is where it stopped. */
  complete: boolean;
  last: Keyset | null;
}

async function readPages<R extends TimedRow>(
  pool: Pool,
  sql: string,
  from: Keyset,
  pageRows: number,
): Promise<Pages<R>> {
  const rows: R[] = [];
  let at = from;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await pool.query<Raw<R>>({
      text: sql,
      values: [at.at, pageRows, at.id],
      types: RAW_TIMES,
    });
    for (const r of res.rows) rows.push({ ...r, at: parseTimestamp(r.at) } as unknown as R);
    const last = res.rows.at(-1);
    if (res.rows.length < pageRows || !last) return { rows, complete: true, last: null };
    at = { at: last.at, id: last.id };
  }
  return { rows, complete: false, last: at };
}

/**
 * Returns the rows not counted yet. On the first run it only initialises the cursor at the
 * database's clock (rows already there are remembered, not counted) and returns nothing.
 */
export async function readNewRows<R extends TimedRow>(
  pool: Pool,
  cursor: WatermarkCursor,
  sql: string,
  pageRows = PAGE_ROWS,
): Promise<R[]> {
  if (!cursor.initialised) {
    const res = await pool.query<{ at: string; ms: number }>({
      text: 'SELECT now()::text AS at, (extract(epoch FROM now()) * 1000)::float8 AS ms',
      types: RAW_TIMES,
    });
    const now = res.rows[0]!;
    const existing = await readPages<R>(pool, sql, cursor.windowStart(now.ms), pageRows);
    cursor.initialise(now, existing.rows, existing.complete);
    return [];
  }
  const pages = await readPages<R>(pool, sql, cursor.start(), pageRows);
  return cursor.accept(pages.rows, pages.last);
}
