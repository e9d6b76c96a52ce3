// The broker's counters of the queues whose consumers record no settle, as acktrail read them
// (migration 007): written as the stats collector reads each new answer, read back for the
// windows that hold a journey's deliveries (journeys/model/inference.ts), deleted past the
// retention. Several replicas write the same queue's readings at different moments: each is a
// reading all the same (the counters are the broker's), and one of the same moment is kept once.
import type pg from 'pg';
import type { Reader } from './replica.js';

/** One reading of a queue's counters; a count is null where the broker gave none. */
export interface QueueReading {
  queue: string;
  vhost: string;
  atMs: number;
  delivered: number | null;
  acked: number | null;
  unacked: number | null;
  consumers: number | null;
}

/** Readings of one write at most: a refresh of a thousand watched queues is one statement. */
const MAX_ROWS = 5_000;

export class QueueReadings {
  constructor(
    private readonly writes: pg.Pool,
    private readonly reads: Reader,
  ) {}

  async record(readings: readonly QueueReading[]): Promise<void> {
    const rows = readings.slice(0, MAX_ROWS);
    if (rows.length === 0) return;
    await this.writes.query(
      `INSERT INTO queue_readings (queue, vhost, at, delivered, acked, unacked, consumers)
       SELECT r.queue, r.vhost, to_timestamp(r.at_ms / 1000.0), r.delivered, r.acked, r.unacked,
              r.consumers
         FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::bigint[], $6::int[],
                     $7::int[]) AS r(queue, vhost, at_ms, delivered, acked, unacked, consumers)
       ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.queue),
        rows.map((r) => r.vhost),
        rows.map((r) => r.atMs),
        rows.map((r) => r.delivered),
        rows.map((r) => r.acked),
        rows.map((r) => r.unacked),
        rows.map((r) => r.consumers),
      ],
    );
  }

  /** The readings of these queues from `fromMs` to `toMs`, in time order per queue. */
  async around(queues: readonly string[], fromMs: number, toMs: number): Promise<QueueReading[]> {
    if (queues.length === 0) return [];
    const res = await this.reads.query<{
      queue: string;
      vhost: string;
      at_ms: number;
      delivered: string | null;
      acked: string | null;
      unacked: number | null;
      consumers: number | null;
    }>(
      `SELECT queue, vhost, (extract(epoch FROM at) * 1000)::float8 AS at_ms, delivered, acked,
              unacked, consumers
         FROM queue_readings
        WHERE queue = ANY($1) AND at >= to_timestamp($2 / 1000.0) AND at <= to_timestamp($3 / 1000.0)
        ORDER BY queue, at
        LIMIT 2000`,
      [queues, fromMs, toMs],
    );
    const num = (v: string | null) => (v === null ? null : Number(v));
    return res.rows.map((r) => ({
      queue: r.queue,
      vhost: r.vhost,
      atMs: r.at_ms,
      delivered: num(r.delivered),
      acked: num(r.acked),
      unacked: r.unacked,
      consumers: r.consumers,
    }));
  }

  /** Deletes the readings older than the retention; returns how many went. */
  async dropOlderThan(retentionDays: number): Promise<number> {
    const res = await this.writes.query(
      `DELETE FROM queue_readings WHERE at < now() - make_interval(days => $1)`,
      [retentionDays],
    );
    return res.rowCount ?? 0;
  }
}
