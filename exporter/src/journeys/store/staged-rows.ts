// How a write's rows reach PostgreSQL: COPY, in its text format, into a temporary table of the
// transaction's connection; step-store.ts then inserts them from there with ON CONFLICT. PostgreSQL
// reads COPY's rows for less CPU than one JSON document of the same rows through
// json_to_recordset, and they are a third fewer bytes (docs/benchmarks-history.md, "Rows sent by COPY").
//
// The table is created by the statement that opens the transaction when the server connection
// has none yet, and emptied at every commit: nothing of it outlives a transaction, so it works
// through a transaction pooler (PgBouncer) as directly. It needs the TEMPORARY privilege on the
// store's database, which PostgreSQL grants to every role by default.
import { finished } from 'node:stream/promises';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Step } from '../model/steps.js';

const TABLE = 'acktrail_staged_steps';
/** Rows turned into COPY text at a time: a few milliseconds of work. */
const ROWS_PER_SLICE = 256;

/** Runs in the transaction's first round trip, after its BEGIN. */
export const CREATE_STAGING_TABLE = `CREATE TEMP TABLE IF NOT EXISTS ${TABLE} (
  event_id text, time_us float8, duration_us int8, stage text, service text, trace_id text,
  span_id text, parent_span_id text, name text, status text, status_message text,
  aggregate_type text, aggregate_id text, anomaly text, attrs jsonb
) ON COMMIT DELETE ROWS`;

/** The staged rows as journey_steps rows, for an INSERT ... SELECT. */
export const STAGED_STEPS = `SELECT event_id, to_timestamp(time_us / 1e6), duration_us, stage,
       service, trace_id, span_id, parent_span_id, name, status, status_message, aggregate_type,
       aggregate_id, anomaly, attrs
  FROM ${TABLE}`;

const SPECIAL = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One field of COPY's text format: `\N` for null, the four characters it treats specially escaped. */
function field(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(SPECIAL, (c) => ESCAPED[c]!);
}

/** The steps as COPY text rows, in CREATE_STAGING_TABLE's column order. */
export function copyRows(steps: readonly Step[]): string {
  let out = '';
  for (const s of steps)
    out +=
      `${field(s.eventId)}\t${String(s.timeUs)}\t${String(s.durationUs)}\t${field(s.stage)}\t` +
      `${field(s.service)}\t${field(s.traceId)}\t${field(s.spanId)}\t${field(s.parentSpanId)}\t` +
      `${field(s.name)}\t${field(s.status)}\t${field(s.statusMessage)}\t` +
      `${field(s.aggregateType)}\t${field(s.aggregateId)}\t${field(s.anomaly)}\t` +
      `${field(JSON.stringify(s.attrs))}\n`;
  return out;
}

/** Sends the steps into the staging table; resolves once PostgreSQL has taken them all. */
export async function stageSteps(db: pg.PoolClient, steps: readonly Step[]): Promise<void> {
  const copy = db.query(copyFrom(`COPY ${TABLE} FROM STDIN`));
  // Listened to from the start: on a connection the server has ended, the stream fails on the
  // next tick, and an 'error' with nobody listening would end the process (awaited below).
  const done = finished(copy);
  done.catch(() => undefined);
  // In slices, the event loop free between them: a write of thousands of rows is not one long
  // task that /healthz and /metrics wait behind.
  for (let i = 0; i < steps.length && !copy.destroyed; i += ROWS_PER_SLICE) {
    copy.write(copyRows(steps.slice(i, i + ROWS_PER_SLICE)));
    await yieldLoop();
  }
  if (!copy.destroyed) copy.end();
  await done;
}
