// Spans and journey lookups against a running exporter while its database goes away (connections
// ended, a restart): what a pipeline and support do meanwhile, and what must hold after it. Used
// by test/database-blinks.int.test.ts and test/database-restart.int.test.ts.
import assert from 'node:assert/strict';
import pg from 'pg';
import { waitFor, type RoleProcess } from '@acktrail/testing';
import { jsonBody } from './otlp.js';

/** Spans per batch (one trace each), so that a batch is whole in the store or not at all. */
const SIZE = 50;

type Tally = Map<number | string, number>;
const tally = (m: Tally, key: number | string) => m.set(key, (m.get(key) ?? 0) + 1);
const statusOf = (res: Response) => res.arrayBuffer().then(() => res.status);
const noAnswer = (err: unknown) => `no answer: ${String((err as Error).cause ?? err)}`;

export interface StoreLoad {
  /** Batches answered 200, by number. */
  acked: number[];
  /** The answers to exports and to lookups, by status (or "no answer: ..."). */
  exports: Tally;
  lookups: Tally;
  /** Stops sending and reading; resolves once every request in flight has its answer. */
  stop(): Promise<void>;
}

/** `senders` posting batches of spans and `readers` looking their journeys up, until stopped. */
export function storeLoad(url: string, token: string, senders = 4, readers = 8): StoreLoad {
  const load: StoreLoad = {
    acked: [],
    exports: new Map(),
    lookups: new Map(),
    stop: () => Promise.resolve(),
  };
  let next = 0;
  let stopped = false;
  const send = async () => {
    while (!stopped) {
      const batch = next++;
      const status = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: jsonBody(batch + 1, SIZE, `load-${batch}`),
      }).then(statusOf, noAnswer);
      tally(load.exports, status);
      if (status === 200) load.acked.push(batch);
    }
  };
  const read = async () => {
    for (let i = 0; !stopped; i++) {
      const id = `load-${Math.max(0, next - 1 - (i % 5))}-1`;
      const status = await fetch(`${url}/api/events/${id}`, {
        headers: { authorization: `Bearer ${token}` },
      }).then(statusOf, noAnswer);
      tally(load.lookups, status);
    }
  };
  const all = [...Array.from({ length: senders }, send), ...Array.from({ length: readers }, read)];
  load.stop = async () => {
    stopped = true;
    await Promise.all(all);
  };
  return load;
}

/**
 * What must hold once the database is back: the same process serves, exports were answered 200
 * or 503 and lookups 200, 404 or 503 (never a dropped connection), /readyz is ready within 10 s,
 * every batch answered 200 is whole in the store, and the outbox collector reads again.
 */
export async function assertRecovered(
  proc: RoleProcess,
  url: string,
  storeUrl: string,
  load: StoreLoad,
): Promise<void> {
  const last = [...proc.stderr.slice(-10), ...proc.lines.slice(-10).map((l) => JSON.stringify(l))];
  assert.ok(proc.running, `the exporter exited: ${last.join('\n')}`);
  const unexpected = (t: Tally, ok: number[]) =>
    [...t.keys()].filter((s) => !ok.includes(s as number));
  assert.deepEqual(unexpected(load.exports, [200, 503]), [], JSON.stringify([...load.exports]));
  assert.deepEqual(
    unexpected(load.lookups, [200, 404, 503]),
    [],
    JSON.stringify([...load.lookups]),
  );
  await waitFor('/readyz ready again', async () => (await fetch(`${url}/readyz`)).status === 200, {
    timeoutMs: 10_000,
  });
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    const stored = await client.query<{ trace_id: string; n: number }>(
      'SELECT trace_id, count(*)::int AS n FROM journey_steps GROUP BY trace_id',
    );
    const byTrace = new Map(stored.rows.map((r) => [r.trace_id, r.n]));
    const trace = (b: number) => (b + 1).toString(16).padStart(32, '0');
    const lost = load.acked.filter((b) => byTrace.get(trace(b)) !== SIZE);
    assert.deepEqual(lost, [], `of ${load.acked.length} batches answered 200`);
  } finally {
    await client.end();
  }
  await waitFor('the outbox collector reading again', async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return /acktrail_collector_success\{collector="outbox"\} 1/.test(text);
  });
}

/** One line for a test's diagnostics: what the load was answered. */
export const loadSummary = (load: StoreLoad) =>
  `exports ${JSON.stringify([...load.exports])}; lookups ${JSON.stringify([...load.lookups])}`;
