// Where the journey store's reads go: the API's lookups and lists, the Celery workflows and the
// journey-derived queue heads read from a streaming replica when one is configured
// (ACKTRAIL_DATABASE_READ_URL), every write and the dead letters' state stay on the primary. A
// replica that does not answer, or that lags more than journeys.maxReadLagSeconds behind, is left
// for the primary until its next check (every few seconds) finds it well again: reads never fail
// because the replica is away, they only get slower.
import type pg from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import { errorMessage, type Logger } from '../../log.js';
import { withTransaction } from '../../db/checkout.js';
import { counter, gauge } from '../../metrics/catalogue.js';

/** What the read paths need of a pool: its query method. */
export interface Reader {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /**
   * `text` in a transaction of its own opened with `settings` (SET LOCAL …): for a read whose
   * plan must not depend on statistics (a store where autovacuum does not run has none for
   * today's partition). Absent: a plain query.
   */
  planned?<R extends pg.QueryResultRow = pg.QueryResultRow>(
    settings: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

export interface ReplicaStatus {
  /** null: not checked yet. */
  up: boolean | null;
  /** Seconds the replica's replay is behind (0 when it has replayed all it received). */
  lagSeconds: number | null;
  /** Where reads go now. */
  readsFrom: 'replica' | 'primary';
  error: string | null;
}

/**
 * An error that says the replica (not the query) failed: no SQLSTATE (the connection: refused,
 * reset, terminated, timed out), class 08 (connection), 57P (shut down), 53 (resources), 58
 * (system), or 40001 (a conflict with recovery). A query's own error (a statement timeout, bad
 * data) would fail on the primary too.
 */
const replicaFault = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  return sqlstate === null || /^(08|57P|53|58)/.test(sqlstate) || sqlstate === '40001';
};

// Lag as postgres_exporter measures it: 0 while the replica has replayed everything it received
// (no writes: no lag), otherwise the age of the last transaction it replayed.
const LAG_SQL = `SELECT pg_is_in_recovery() AS standby,
  CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
       ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS lag`;

export class ReplicaReads implements Reader {
  private state: ReplicaStatus;
  private readonly reads: Counter<'pool'>;
  private readonly lag: Gauge;
  private readonly upGauge: Gauge;

  constructor(
    private readonly primary: pg.Pool,
    private readonly replica: pg.Pool | null,
    private readonly maxLagSeconds: number,
    registry: Registry,
    private readonly log: Logger,
  ) {
    this.state = { up: null, lagSeconds: null, readsFrom: 'primary', error: null };
    this.reads = new Counter({ ...counter('acktrail_store_reads_total'), registers: [registry] });
    this.lag = new Gauge({
      ...gauge('acktrail_store_replica_lag_seconds'),
      registers: replica ? [registry] : [],
    });
    this.upGauge = new Gauge({
      ...gauge('acktrail_store_replica_up'),
      registers: replica ? [registry] : [],
    });
    for (const pool of replica ? ['replica', 'primary'] : ['primary']) this.reads.inc({ pool }, 0);
  }

  get configured(): boolean {
    return this.replica !== null;
  }

  status(): ReplicaStatus {
    return { ...this.state };
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    if (this.replica && this.state.readsFrom === 'replica') {
      try {
        const res = await this.replica.query<R>(text, values);
        this.reads.inc({ pool: 'replica' });
        return res;
      } catch (err) {
        if (!replicaFault(err)) throw err;
        if ((err as { code?: string }).code !== '40001') this.down(err);
      }
    }
    const res = await this.primary.query<R>(text, values);
    this.reads.inc({ pool: 'primary' });
    return res;
  }

  /** As `query`, in a transaction opened with `settings` (Reader.planned). */
  async planned<R extends pg.QueryResultRow = pg.QueryResultRow>(
    settings: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    const run = (pool: pg.Pool) =>
      withTransaction(pool, (client) => client.query<R>(text, values), settings);
    if (this.replica && this.state.readsFrom === 'replica') {
      try {
        const res = await run(this.replica);
        this.reads.inc({ pool: 'replica' });
        return res;
      } catch (err) {
        if (!replicaFault(err)) throw err;
        if ((err as { code?: string }).code !== '40001') this.down(err);
      }
    }
    const res = await run(this.primary);
    this.reads.inc({ pool: 'primary' });
    return res;
  }

  /** Checks the replica (the store's loop calls this every few seconds). */
  async check(): Promise<void> {
    if (!this.replica) return;
    try {
      const r = await this.replica.query<{ standby: boolean; lag: number }>(LAG_SQL);
      const lag = Math.max(0, r.rows[0]?.lag ?? 0);
      this.lag.set(lag);
      this.upGauge.set(1);
      const readsFrom = lag <= this.maxLagSeconds ? 'replica' : 'primary';
      if (readsFrom !== this.state.readsFrom)
        this.log[readsFrom === 'replica' ? 'info' : 'warn'](
          { lagSeconds: lag, maxLagSeconds: this.maxLagSeconds },
          readsFrom === 'replica'
            ? 'journey store reads: from the replica'
            : 'journey store reads: from the primary (the replica lags too far behind)',
        );
      if (r.rows[0]?.standby === false && this.state.up === null)
        this.log.warn('ACKTRAIL_DATABASE_READ_URL is not a standby: reads go to another primary');
      this.state = { up: true, lagSeconds: lag, readsFrom, error: null };
    } catch (err) {
      this.down(err);
    }
  }

  private down(err: unknown): void {
    this.upGauge.set(0);
    if (this.state.up !== false)
      this.log.warn(
        { err: errorMessage(err) },
        'journey store reads: from the primary (the replica does not answer)',
      );
    this.state = {
      up: false,
      lagSeconds: this.state.lagSeconds,
      readsFrom: 'primary',
      error: errorMessage(err),
    };
  }
}
