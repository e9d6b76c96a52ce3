// The journey store under pressure, on a real PostgreSQL: a write queue that never grows past its
// bound, and connections that die under it without taking the exporter down; and a journey that
// crosses midnight, whose earlier steps a later write finds on the day before.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import pg from 'pg';
import { waitFor } from '@acktrail/testing';
import { TestExporter } from '../../../testing/exporter.js';
import { childOf, exportSpans, jsonBody, makeSpans } from '../../../testing/otlp.js';
import { DAY_MS } from './event-days.js';

let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let admin: pg.Pool;

before(async () => {
  exporter = await TestExporter.withStore(
    {},
    { journeys: { maxPendingSteps: 100, lockTimeoutSeconds: 60 } },
  );
  admin = new pg.Pool({ connectionString: exporter.storeUrl, max: 3 });
});
after(async () => {
  await admin.end();
  await exporter.close();
});

const spans = (batch: number, n: number) => jsonBody(batch + 1, n, `store-${batch}`);

const post = (body: string) =>
  fetch(`${exporter.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });

test('a full write queue answers 503 at once; what was queued is committed when the store moves', async () => {
  assert.equal((await post(spans(0, 1))).status, 200); // today's partition exists
  const lock = await admin.connect();
  try {
    // Inserts wait behind this lock: the store is "slow".
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE journey_steps IN EXCLUSIVE MODE');
    let firstAnswered = false;
    const first = post(spans(1, 100)).then((r) => {
      firstAnswered = true;
      return r.status;
    });
    await waitFor('the first write to wait for the lock', async () => {
      const text = (await exporter.scrape()).text;
      return /^acktrail_ingest_inflight_bytes [1-9]/m.test(text);
    });
    const second = await post(spans(2, 10));
    assert.equal(second.status, 503, 'the queue holds 100 steps, its bound');
    assert.equal(second.headers.get('retry-after'), '2');
    assert.match(await second.text(), /steps are waiting for the journey store/);
    assert.equal(firstAnswered, false, 'refused while the first write still waits');
    assert.equal(
      (await exporter.scrape()).value('acktrail_ingest_refused_total', { reason: 'store_busy' }),
      1,
    );
    await lock.query('COMMIT');
    assert.equal(await first, 200);
    assert.equal((await post(spans(2, 10))).status, 200, 'taken once there is room');
  } finally {
    lock.release();
  }
  const n = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journey_steps WHERE event_id LIKE 'store-%'`,
  );
  assert.equal(n.rows[0]!.n, 111);
});

test('connections killed under the store are logged and counted, and the next write works', async () => {
  const errors = async () =>
    (await exporter.scrape()).value('acktrail_background_errors_total', {
      part: 'journey_store',
    }) ?? 0;
  const before0 = await errors();
  // A store connection may be busy at this instant (a write's commit, the day's partition): the
  // kill is tried until one idle connection was there to lose.
  await waitFor(
    'an idle store connection killed',
    async () => {
      const killed = await admin.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'acktrail-journeys' AND state = 'idle'`,
      );
      return killed.rows[0]!.n > 0;
    },
    { timeoutMs: 10_000 },
  );
  await waitFor('the lost connections counted', async () => (await errors()) > before0);
  assert.ok(exporter.logs.some((l) => l.msg === 'journey store connection lost'));
  assert.equal((await post(spans(3, 5))).status, 200);
});

// Written in two requests (the publish's service, then the worker's: the event is already there
// and widened to today), or in one that brings the whole journey (the event is new, its days this
// write's own, read from no table).
for (const together of [false, true])
  test(`a journey across midnight, ${together ? 'in one write' : 'in two writes'}: its publish and its start are found on the day before`, async () => {
    const eventId = randomUUID();
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const step = (stage: string, extra: Record<string, string> = {}) => ({
      'acktrail.stage': stage,
      'acktrail.event_id': eventId,
      ...extra,
    });
    const [insert] = makeSpans([
      { name: 'outbox insert', startMs: midnight - 3000, attributes: step('outbox.insert') },
    ]);
    const [publish] = makeSpans([
      {
        name: 'publish orders',
        kind: SpanKind.PRODUCER,
        startMs: midnight - 2000,
        parent: childOf(insert!),
        attributes: step('outbox.publish', { 'acktrail.publish.outcome': 'confirmed' }),
      },
    ]);
    const [deliver] = makeSpans([
      {
        name: 'orders process',
        kind: SpanKind.CONSUMER,
        parent: childOf(publish!),
        attributes: step('deliver', { 'acktrail.queue': 'orders' }),
      },
    ]);
    const [settle] = makeSpans([
      {
        name: 'ack orders',
        parent: childOf(deliver!),
        attributes: step('settle', {
          'acktrail.settle.outcome': 'ack',
          'acktrail.queue': 'orders',
        }),
      },
    ]);
    const observed = async (stage: string) => {
      const s = await exporter.scrape();
      return {
        count: s.value('acktrail_stage_duration_seconds_count', { stage }) ?? 0,
        sum: s.value('acktrail_stage_duration_seconds_sum', { stage }) ?? 0,
      };
    };
    const [queueWait, endToEnd] = [await observed('queue_wait'), await observed('end_to_end')];

    if (together) {
      const all = [insert!, publish!, deliver!, settle!];
      assert.equal((await exportSpans(exporter.url, all, 'protobuf')).code, 0);
    } else {
      assert.equal((await exportSpans(exporter.url, [insert!, publish!], 'protobuf')).code, 0);
      // Another write, on the next day: the publish and the outbox insert are read from yesterday.
      assert.equal((await exportSpans(exporter.url, [deliver!, settle!], 'protobuf')).code, 0);
    }

    const days = await admin.query<{ first: string; last: string }>(
      `SELECT first_day::text AS first, last_day::text AS last FROM journey_events WHERE event_id = $1`,
      [eventId],
    );
    assert.deepEqual(days.rows, [
      {
        first: new Date(midnight - DAY_MS).toISOString().slice(0, 10),
        last: new Date(settle!.startTime[0] * 1000).toISOString().slice(0, 10),
      },
    ]);
    const wait = await observed('queue_wait');
    assert.equal(wait.count - queueWait.count, 1, 'queue_wait from the publish of the day before');
    const ms = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
    const close = (a: number, b: number) => Math.abs(a - b) < 0.01;
    assert.ok(close(wait.sum - queueWait.sum, (ms(deliver!.startTime) - (midnight - 2000)) / 1000));
    const e2e = await observed('end_to_end');
    assert.equal(e2e.count - endToEnd.count, 1, 'end_to_end from the insert of the day before');
    assert.ok(close(e2e.sum - endToEnd.sum, (ms(settle!.startTime) - (midnight - 3000)) / 1000));
  });

test("a step's strings come back as sent, COPY's own characters among them, and at its microsecond", async () => {
  const eventId = randomUUID();
  const tricky = 'tab\there, line\nbreak, cr\r, back\\slash, \\N, \\.\n\\., é ✓';
  const startMs = Date.now() - 1000 + 0.123; // 123 µs past a millisecond
  const [span] = makeSpans([
    {
      name: `process ${tricky}`,
      kind: SpanKind.CONSUMER,
      startMs,
      attributes: {
        'acktrail.stage': 'deliver',
        'acktrail.event_id': eventId,
        'acktrail.queue': tricky,
      },
    },
  ]);
  assert.equal((await exportSpans(exporter.url, [span!], 'protobuf')).code, 0);
  const row = await admin.query<{ name: string; queue: string; us: string }>(
    `SELECT name, attrs->>'acktrail.queue' AS queue,
            ((extract(epoch FROM time) * 1e6)::bigint)::text AS us
       FROM journey_steps WHERE event_id = $1`,
    [eventId],
  );
  assert.deepEqual(row.rows, [
    {
      name: `process ${tricky}`,
      queue: tricky,
      us: String(span!.startTime[0] * 1e6 + Math.round(span!.startTime[1] / 1000)),
    },
  ]);
});

test("each write's duration is a histogram, by whether it was stored", async () => {
  const count = async (result: string) =>
    (await exporter.scrape()).value('acktrail_journey_store_write_duration_seconds_count', {
      result,
    }) ?? 0;
  const [stored, failed] = [await count('stored'), await count('failed')];
  assert.equal((await post(spans(5, 20))).status, 200);
  assert.ok((await count('stored')) > stored, 'the committed write was timed');
  assert.equal(await count('failed'), failed);
});
