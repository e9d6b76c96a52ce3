// The orders API against a real PostgreSQL database of its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { createPool, type Pool } from '../db/pool.js';
import type { TestDatabase } from '@acktrail/testing';
import { createTestDatabase } from '../testing/index.js';
import { createApp } from './app.js';

let db: TestDatabase;
let pool: Pool;
let server: Server;
let base: string;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  server = createApp(pool, pino({ level: 'silent' })).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

after(async () => {
  server.close();
  await pool.end();
  await db.drop();
});

const post = (
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) =>
  fetch(base + path, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function counts() {
  const r = await pool.query<{ orders: number; outbox: number }>(
    'SELECT (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM outbox_events)::int AS outbox',
  );
  return r.rows[0]!;
}

describe('POST /orders', () => {
  test('writes the order and its outbox row and answers 201 with ids and pending', async () => {
    const res = await post('/orders', { customer_email: 'ann@example.com', total: 25.5 });
    assert.equal(res.status, 201);
    const body = (await res.json()) as {
      order_id: number;
      event_id: string;
      notification_status: string;
    };
    assert.equal(body.notification_status, 'pending');
    assert.match(body.event_id, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('location'), `/orders/${body.order_id}`);

    const row = await pool.query(
      `SELECT o.total, o.notification_status, e.event_type, e.aggregate_id, e.schema_version, e.payload, e.published_at
         FROM orders o JOIN outbox_events e ON e.aggregate_id = o.id WHERE e.id = $1`,
      [body.event_id],
    );
    assert.deepEqual(row.rows[0], {
      total: 25.5,
      notification_status: 'pending',
      event_type: 'order.created',
      aggregate_id: body.order_id,
      schema_version: 1,
      payload: { order_id: body.order_id },
      published_at: null,
    });
  });

  const bad: [string, unknown, RegExp][] = [
    ['missing email', { total: 10 }, /customer_email/],
    ['bad email', { customer_email: 'nope', total: 10 }, /customer_email/],
    ['negative total', { customer_email: 'a@example.com', total: -1 }, /total/],
    ['total as text', { customer_email: 'a@example.com', total: '10' }, /total/],
    ['unknown key', { customer_email: 'a@example.com', total: 1, admin: true }, /admin/],
    ['not JSON', '{"customer_email":', /not valid JSON/],
    ['an array', [1, 2], /object/],
  ];
  for (const [name, body, message] of bad) {
    test(`400 that says what is wrong, and nothing written: ${name}`, async () => {
      const before = await counts();
      const res = await post('/orders', body);
      assert.equal(res.status, 400);
      const json = (await res.json()) as { error: string };
      assert.match(json.error, message);
      assert.deepEqual(await counts(), before);
    });
  }

  test('413 for an oversized body', async () => {
    const res = await post('/orders', {
      customer_email: 'a@example.com',
      total: 1,
      pad: 'x'.repeat(20_000),
    });
    assert.equal(res.status, 413);
  });

  test('a failing outbox insert leaves no order behind', async () => {
    await pool.query(`CREATE FUNCTION fail_outbox() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'outbox unavailable'; END $$`);
    await pool.query(
      'CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION fail_outbox()',
    );
    try {
      const before = await counts();
      const res = await post('/orders', { customer_email: 'b@example.com', total: 3 });
      assert.equal(res.status, 500);
      assert.deepEqual(await counts(), before);
    } finally {
      await pool.query('DROP TRIGGER fail_outbox ON outbox_events');
    }
  });
});

describe('GET /orders/:id', () => {
  test('returns the order with its events and no confirmation yet', async () => {
    const created = (await (
      await post('/orders', { customer_email: 'c@example.com', total: 7 })
    ).json()) as {
      order_id: number;
      event_id: string;
    };
    const res = await fetch(`${base}/orders/${created.order_id}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      order_id: number;
      events: { event_id: string }[];
      confirmation: unknown;
    };
    assert.equal(body.order_id, created.order_id);
    assert.deepEqual(
      body.events.map((e) => e.event_id),
      [created.event_id],
    );
    assert.equal(body.confirmation, null);
  });

  test('400 for a bad id, 404 for an unknown one', async () => {
    assert.equal((await fetch(`${base}/orders/abc`)).status, 400);
    assert.equal((await fetch(`${base}/orders/0`)).status, 400);
    assert.equal((await fetch(`${base}/orders/999999`)).status, 404);
  });
});

describe('POST /orders/:id/cancel', () => {
  test('cancels a pending order, 404 for unknown', async () => {
    const created = (await (
      await post('/orders', { customer_email: 'd@example.com', total: 7 })
    ).json()) as {
      order_id: number;
    };
    const res = await post(`/orders/${created.order_id}/cancel`, {});
    assert.equal(res.status, 200);
    const order = await pool.query<{ status: string }>('SELECT status FROM orders WHERE id = $1', [
      created.order_id,
    ]);
    assert.equal(order.rows[0]!.status, 'cancelled');
    assert.equal((await post('/orders/999999/cancel', {})).status, 404);
  });
});
