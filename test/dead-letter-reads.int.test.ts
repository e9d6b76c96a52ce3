// The dead-letter API's reads cannot starve writes: like the journey API's, they run on the
// primary's read pool, not on the pool ingest and parking write with. The reads are made to hang
// on a real lock (the audit log held in ACCESS EXCLUSIVE mode) while spans arrive: every span is
// stored. On the write pool (6 connections) the eight hanging reads took every connection.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestVhost, waitFor, type TestVhost } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { exportSpans, makeSpans } from '@acktrail/exporter/testing/otlp';

const READ = 'dl-reads-read-token-0123456';
const OPERATE = 'dl-reads-operate-token-0123';
let vhost: TestVhost;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;

before(async () => {
  vhost = await createTestVhost();
  exporter = await TestExporter.withStore(
    {
      ACKTRAIL_API_TOKEN: READ,
      ACKTRAIL_OPERATOR_TOKEN: OPERATE,
      ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64'),
    },
    {
      journeys: { readPoolSize: 8 },
      // The queue need not exist: the API answers whatever parking has found.
      deadLetters: { enabled: true, url: vhost.url, queues: [{ queue: 'reads.dlq' }] },
    },
  );
});
after(async () => {
  await exporter.close();
  await vhost.drop();
});

/** Sessions of an application waiting on a lock, watched from a session of its own. */
async function waiting(storeUrl: string, application: string): Promise<number> {
  const watch = new pg.Client({ connectionString: storeUrl });
  await watch.connect();
  try {
    const r = await watch.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND application_name = $1`,
      [application],
    );
    return r.rows[0]!.n;
  } finally {
    await watch.end();
  }
}

test('eight dead-letter reads hang on a lock while spans arrive: they wait on the read pool, every span is stored', async () => {
  const admin = new pg.Client({ connectionString: exporter.storeUrl });
  await admin.connect();
  await admin.query('BEGIN');
  await admin.query('LOCK TABLE dead_letter_audit IN ACCESS EXCLUSIVE MODE');
  const audit = (token: string) =>
    fetch(`${exporter.url}/api/dead-letters/audit`, {
      headers: { authorization: `Bearer ${token}` },
    });
  const reads = [READ, READ, READ, READ, OPERATE, OPERATE, OPERATE, OPERATE].map(audit);
  try {
    await waitFor('eight reads waiting on the lock, on the read pool', async () => {
      return (await waiting(exporter.storeUrl, 'acktrail-journeys-api')) === 8;
    });
    assert.equal(await waiting(exporter.storeUrl, 'acktrail-journeys'), 0, 'none on the writes');
    const now = Date.now();
    const spans = makeSpans(
      Array.from({ length: 30 }, (_, i) => ({
        name: 'deliver',
        startMs: now + i,
        attributes: { 'acktrail.event_id': `dl-reads-${i}`, 'acktrail.stage': 'deliver' },
      })),
    );
    const sent = await exportSpans(exporter.url, spans, 'protobuf');
    assert.equal(sent.code, 0, `ingest answered: ${String(sent.error)}`);
    const check = new pg.Client({ connectionString: exporter.storeUrl });
    await check.connect();
    try {
      const stored = await check.query<{ n: number }>(
        `SELECT count(DISTINCT event_id)::int AS n FROM journey_steps WHERE event_id LIKE 'dl-reads-%'`,
      );
      assert.equal(stored.rows[0]!.n, 30);
    } finally {
      await check.end();
    }
  } finally {
    await admin.query('ROLLBACK');
    await admin.end();
  }
  const answers = await Promise.all(reads);
  assert.deepEqual(
    answers.map((r) => r.status),
    Array.from({ length: 8 }, () => 200),
  );
});

test('25 dead letters and 25 audit entries page newest first by number, 5 at a time, reaching every one', async () => {
  const admin = new pg.Client({ connectionString: exporter.storeUrl });
  await admin.connect();
  let ids: string[];
  try {
    const parked = await admin.query<{ id: string }>(
      `INSERT INTO dead_letters (vhost, queue, expires_at, state, reason, reason_source,
                                 reason_group, exchange, routing_key, deaths, body_bytes, fingerprint)
       SELECT '/', 'paging.dlq', now() + interval '1 day', 'parked', 'r', 'x-death', 'g', 'x', 'k',
              '[]', 1, 'paging-' || g
         FROM generate_series(1, 25) g RETURNING id::text`,
    );
    ids = parked.rows.map((r) => r.id);
    await admin.query(
      `INSERT INTO dead_letter_audit (actor, actor_verified, action, queue, outcome)
       SELECT 'paging-test', false, 'discard', 'paging.dlq', 'ok' FROM generate_series(1, 25)`,
    );
  } finally {
    await admin.end();
  }
  const walk = async (path: string, key: 'deadLetters' | 'entries', filter: string) => {
    const seen: string[] = [];
    let before: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await fetch(
        `${exporter.url}${path}?limit=5&${filter}${before ? `&before=${before}` : ''}`,
        { headers: { authorization: `Bearer ${READ}` } },
      );
      assert.equal(res.status, 200);
      const body = (await res.json()) as Record<string, unknown> & { next: string | null };
      seen.push(...(body[key] as { id: string }[]).map((m) => m.id));
      before = body.next;
      if (!before) break;
    }
    return seen;
  };
  const messages = await walk('/api/dead-letters', 'deadLetters', 'queue=paging.dlq');
  const byNumber = [...ids].sort((a, b) => Number(b) - Number(a));
  assert.deepEqual(messages, byNumber, 'newest first by number, every one reached');
  const entries = (await walk('/api/dead-letters/audit', 'entries', '')).map(Number);
  assert.ok(entries.length >= 25, `reached ${entries.length} audit entries`);
  assert.deepEqual(
    entries,
    [...entries].sort((a, b) => b - a),
    'audit entries newest first by number',
  );
});
