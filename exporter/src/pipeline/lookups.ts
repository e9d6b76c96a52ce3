// Business-key lookups (config/lookups.ts): the value support has (an e-mail, a payment
// reference) to the aggregate or event ids the team's query maps it to. Each lookup whose
// `matches` the value matches runs in a read-only transaction on the pipeline's read-only role,
// the value its one parameter, at most maxRows + 1 rows read (the extra one says "more"), within
// its timeout. The value is never logged, stored or put in a metric; a failure is told by its
// SQLSTATE's meaning, never by the server's message (which can quote the value: 22P02).
import type pg from 'pg';
import type { LookupConfig } from '../config/lookups.js';
import { withTransaction } from '../db/checkout.js';
import type { ReadOnlyPools } from '../db/pool.js';
import { linearRegex, type LinearRegex } from '../linear-regex.js';

export interface LookupAnswer {
  name: string;
  description: string | null;
  returns: 'aggregate' | 'event';
  /** The ids its query gave, in its order, at most maxRows. */
  ids: string[];
  /** More rows than maxRows matched: the list is cut. */
  truncated: boolean;
  /** Why it gave nothing (no permission, timed out), in words; null when it ran. */
  error: string | null;
}

/** SQLSTATE -> words that never quote the server's message. */
function failure(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case '57014':
      return 'timed out (lookups[].timeoutSeconds)';
    case '42501':
      return 'the read-only role may not read its table';
    case '42P01':
      return 'its table does not exist';
    case '42703':
      return 'a column it names does not exist';
    case '42601':
      return 'its query does not parse';
    case undefined:
      return 'the pipeline database did not answer';
    default:
      return `failed (SQLSTATE ${code})`;
  }
}

/** A value of another type than the column's (text against a uuid): no match, not a failure. */
const NOT_OF_ITS_TYPE = new Set(['22P02', '22007', '22008', '22003']);

interface Runner {
  config: LookupConfig;
  pool: pg.Pool;
  matches: LinearRegex | null;
}

export class BusinessLookups {
  private readonly runners: Runner[];

  constructor(pools: ReadOnlyPools, configs: readonly LookupConfig[]) {
    this.runners = configs.map((config) => ({
      config,
      pool: pools.create(config.timeoutSeconds * 1000, 2),
      matches: config.matches === undefined ? null : linearRegex(config.matches),
    }));
  }

  /** The configured lookups, for the API's description of the search box. */
  get names(): { name: string; description: string | null; returns: string }[] {
    return this.runners.map(({ config: c }) => ({
      name: c.name,
      description: c.description ?? null,
      returns: c.returns,
    }));
  }

  /** Every lookup the value is for, run at once; each answers or says why not. */
  async find(value: string): Promise<LookupAnswer[]> {
    const tried = this.runners.filter((r) => r.matches === null || r.matches.test(value));
    return Promise.all(tried.map((r) => run(r, value)));
  }
}

async function run({ config: c, pool }: Runner, value: string): Promise<LookupAnswer> {
  const answer = {
    name: c.name,
    description: c.description ?? null,
    returns: c.returns,
  };
  try {
    const rows = await withTransaction(
      pool,
      async (db) =>
        (
          await db.query<unknown[]>({
            text: `SELECT * FROM (${c.query}) AS lookup LIMIT ${c.maxRows + 1}`,
            values: [value],
            rowMode: 'array',
          })
        ).rows,
      'SET TRANSACTION READ ONLY',
    );
    const ids = rows.map((r) => r[0]).filter((v) => v !== null && v !== undefined);
    return {
      ...answer,
      ids: ids.slice(0, c.maxRows).map(String),
      truncated: ids.length > c.maxRows,
      error: null,
    };
  } catch (err) {
    if (NOT_OF_ITS_TYPE.has((err as { code?: string }).code ?? ''))
      return { ...answer, ids: [], truncated: false, error: null };
    return { ...answer, ids: [], truncated: false, error: failure(err) };
  }
}
