// How acktrail's connections get their timeouts, with PostgreSQL reached directly or through a
// transaction pooler (PgBouncer's pool_mode = transaction, how most teams reach a shared
// PostgreSQL). Directly, they are startup parameters of each connection. Through a pooler there is
// no session of one's own: PgBouncer refuses unknown startup parameters, and a SET would stay on a
// server connection that other clients get next. So there, each transaction opens with SET LOCAL
// (in the same round trip as its BEGIN), single statements take their timeouts from the role
// (docs/kubernetes.md says how to set them) with a client-side bound as well, and whatever needs
// a session (migrations, session advisory locks, DETACH ... CONCURRENTLY) goes to the direct URL,
// ACKTRAIL_DATABASE_MIGRATE_URL.
import pg from 'pg';

export type Pooler = 'none' | 'transaction';

export interface Timeouts {
  statementTimeoutMs: number;
  lockTimeoutMs?: number;
  /** Every transaction read-only (the pipeline's database). */
  readOnly?: boolean;
}

/** Pool settings that give every statement its timeouts, for this kind of connection. */
export function sessionSettings(pooler: Pooler, t: Timeouts): pg.PoolConfig {
  if (pooler === 'transaction')
    // The client gives up a little after the server should have (the role's statement_timeout).
    return { query_timeout: t.statementTimeoutMs + 1000 };
  return {
    statement_timeout: t.statementTimeoutMs,
    ...(t.lockTimeoutMs === undefined ? {} : { lock_timeout: t.lockTimeoutMs }),
    ...(t.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  };
}

/** The statement that opens a transaction: BEGIN, with SET LOCAL timeouts behind a pooler. */
export function beginStatement(pooler: Pooler, t: Timeouts): string {
  if (pooler === 'none') return 'BEGIN';
  const int = (n: number) => String(Math.max(0, Math.trunc(n)));
  return [
    'BEGIN',
    `SET LOCAL statement_timeout = ${int(t.statementTimeoutMs)}`,
    ...(t.lockTimeoutMs === undefined ? [] : [`SET LOCAL lock_timeout = ${int(t.lockTimeoutMs)}`]),
  ].join('; ');
}

/** A pool that knows how to open a transaction on its kind of connection. */
export class SessionPool extends pg.Pool {
  /** `await client.query(pool.begin)` instead of 'BEGIN'. */
  readonly begin: string;

  constructor(config: pg.PoolConfig, pooler: Pooler, timeouts: Timeouts) {
    super({ ...config, ...sessionSettings(pooler, timeouts) });
    this.begin = beginStatement(pooler, timeouts);
  }
}

/** The statement that opens a transaction on a connection of `pool` (plain pools: BEGIN). */
export const beginOf = (pool: object): string =>
  pool instanceof SessionPool ? pool.begin : 'BEGIN';
