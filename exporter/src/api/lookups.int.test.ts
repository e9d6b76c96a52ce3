// Business-key lookups (config lookups, POST /api/lookups) against a real PostgreSQL database of
// the reference schema, read through the read-only role, with the demo's own lookup
// (examples/orders/acktrail.yaml) and lookups that try what a careless or hostile one would: a
// value that is SQL, a query that writes, one that outlasts its timeout, a value of another type.
// The value is never in the exporter's logs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { TestDatabase } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { createReadOnlyRole, ordersConfig, TestExporter } from '../../testing/exporter.js';

const TOKEN = 'lookups-test-read-token-0123';
const EMAIL = 'ada.lookup@example.org';
let db: TestDatabase;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let admin: pg.Pool;
let exporter: TestExporter;
const ids: number[] = [];

before(async () => {
  db = await createTestDatabase('acktrail_lookups');
  role = await createReadOnlyRole(db.name);
  admin = new pg.Pool({ connectionString: db.url, max: 2 });
  for (const [email, age] of [
    [EMAIL, 60],
    ['someone.else@example.org', 30],
    [EMAIL, 10],
  ] as const) {
    const r = await admin.query<{ id: number }>(
      `INSERT INTO orders (total, customer_email, notification_status, created_at)
       VALUES (1, $1, 'sent', now() - make_interval(secs => $2)) RETURNING id`,
      [email, age],
    );
    if (email === EMAIL) ids.push(r.rows[0]!.id);
  }
  const demo = ordersConfig({ rabbitmq: { enabled: false } }) as { lookups: object[] };
  exporter = await TestExporter.start(
    { DATABASE_URL: role.url, ACKTRAIL_API_TOKEN: TOKEN },
    {
      ...demo,
      lookups: [
        ...demo.lookups,
        {
          name: 'writes',
          matches: '^write:',
          query: "SELECT nextval('orders_id_seq')::text WHERE $1::text IS NOT NULL",
          returns: 'aggregate',
        },
        {
          name: 'slow',
          matches: '^slow:',
          query: 'SELECT pg_sleep(5)::text WHERE $1::text IS NOT NULL',
          returns: 'event',
          timeoutSeconds: 0.2,
        },
        {
          name: 'order-number',
          matches: '^[0-9a-z]+$',
          query: 'SELECT id::text FROM orders WHERE id = $1::bigint',
          returns: 'aggregate',
          maxRows: 1,
        },
      ],
    },
  );
});
after(async () => {
  await exporter.close();
  await admin.end();
  await db.drop();
  await role.drop();
});

const look = async (value: unknown, token = TOKEN) => {
  const res = await fetch(`${exporter.url}/api/lookups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
type Answer = { name: string; ids: string[]; error: string | null; truncated: boolean };
const answers = (b: Record<string, unknown>) => b.lookups as Answer[];

test("the demo's lookup maps a customer's e-mail to their orders, newest first", async () => {
  const r = await look(EMAIL);
  assert.equal(r.status, 200);
  const [email] = answers(r.body).filter((a) => a.name === 'customer-email');
  assert.deepEqual(email?.ids, [String(ids[1]), String(ids[0])]);
  assert.equal(email.error, null);
  // Only the lookups whose pattern the value matches ran.
  assert.deepEqual(
    answers(r.body).map((a) => a.name),
    ['customer-email'],
  );
});

test('GET lists the lookups by name and description, for the search box', async () => {
  const res = await fetch(`${exporter.url}/api/lookups`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await res.json()) as { lookups: { name: string; description: string | null }[] };
  assert.deepEqual(body.lookups[0], {
    name: 'customer-email',
    description: "the customer's e-mail address",
    returns: 'aggregate',
  });
});

test('a value that is SQL is a value: it matches nothing', async () => {
  const r = await look(`${EMAIL}' OR '1'='1`);
  assert.deepEqual(answers(r.body)[0]?.ids, []);
});

test('a lookup that would write is refused (the read-only role, in a read-only transaction), in words', async () => {
  const before = await admin.query<{ v: string }>(
    'SELECT last_value::text AS v FROM orders_id_seq',
  );
  const r = await look('write:x');
  const [writes] = answers(r.body);
  assert.deepEqual(writes?.ids, []);
  assert.match(writes.error ?? '', /may not read|SQLSTATE 25006/);
  const after = await admin.query<{ v: string }>('SELECT last_value::text AS v FROM orders_id_seq');
  assert.equal(after.rows[0]!.v, before.rows[0]!.v, 'the sequence did not move');
});

test('a lookup past its timeout says so; a value of another type is no match, not an error', async () => {
  const slow = answers((await look('slow:x')).body)[0];
  assert.equal(slow?.error, 'timed out (lookups[].timeoutSeconds)');
  const typed = answers((await look('notanumber')).body).find((a) => a.name === 'order-number');
  assert.deepEqual(typed, {
    name: 'order-number',
    description: null,
    returns: 'aggregate',
    ids: [],
    truncated: false,
    error: null,
  });
});

test('bad input is refused with what is wrong; the API needs its token', async () => {
  assert.equal((await look('')).status, 400);
  const long = await look('x'.repeat(321));
  assert.equal(long.status, 400);
  assert.match(String(long.body.error), /value: must be at most 320 characters/);
  assert.equal((await look(EMAIL, 'a-token-of-someone-else-0123')).status, 401);
  const extra = await fetch(`${exporter.url}/api/lookups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ value: EMAIL, query: 'SELECT 1' }),
  });
  assert.equal(extra.status, 400, 'a body that brings its own query is refused');
});

test('the value is in no log line of the exporter', () => {
  const logged = JSON.stringify(exporter.logs);
  assert.ok(!logged.includes('ada.lookup'), 'the e-mail was logged');
  assert.ok(!logged.includes('notanumber'));
});
