// The payments pipeline itself, against the real broker and database, without acktrail: each of
// its faults does to the message what acktrail's journeys will have to tell.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import amqp from 'amqplib';
import pg from 'pg';
import { waitFor } from '@acktrail/testing';
import { TestPayments } from './testing.js';
import { AUDIT_LIMIT_CENTS } from './consumers.js';
import { AUDIT_QUEUE, DEAD_LETTER_QUEUE, LEDGER_QUEUE } from './topology.js';

let p: TestPayments;
let db: pg.Pool;

before(async () => {
  p = await TestPayments.create({ LEDGER_DELIVERY_LIMIT: '2' });
  db = new pg.Pool({ connectionString: p.db.url, max: 2 });
  await p.start('api');
  await p.start('relay');
  await p.start('ledger');
  await p.start('receipts');
  await p.start('audit');
});

after(async () => {
  await db.end();
  await p.close();
});

const phase = async (ref: string) =>
  (await db.query<{ phase: string }>('SELECT phase FROM pay_intents WHERE intent_ref = $1', [ref]))
    .rows[0]?.phase;

/** Dead letters so far, with the reason of their first x-death, read without consuming them. */
async function deadLetters(): Promise<{ ref: string; reason: string; queue: string }[]> {
  const conn = await amqp.connect(p.vhost.url);
  try {
    const ch = await conn.createChannel();
    const out: { ref: string; reason: string; queue: string }[] = [];
    for (let m = await ch.get(DEAD_LETTER_QUEUE); m; m = await ch.get(DEAD_LETTER_QUEUE)) {
      const [death] = (m.properties.headers?.['x-death'] ?? []) as {
        reason: string;
        queue: string;
      }[];
      out.push({
        ref: (JSON.parse(m.content.toString()) as { intent_ref: string }).intent_ref,
        reason: death?.reason ?? '',
        queue: death?.queue ?? '',
      });
    }
    await ch.recover(); // every message back into the queue, as it was
    return out;
  } finally {
    await conn.close();
  }
}

test('an intent is booked once, through the outbox and the ledger', async () => {
  const i = await p.createIntent(1250);
  await waitFor('booked', async () => (await phase(i.intent_ref)) === 'booked');
  const rows = await db.query('SELECT msg_uuid FROM ledger_entries WHERE intent_ref = $1', [
    i.intent_ref,
  ]);
  assert.deepEqual(rows.rows, [{ msg_uuid: i.event_id }]);
});

test('a negative amount is requeued until the quorum queue dead-letters it (delivery_limit)', async () => {
  const i = await p.createIntent(-5);
  const dead = await waitFor('dead-lettered', async () =>
    (await deadLetters()).find((d) => d.ref === i.intent_ref),
  );
  assert.deepEqual(dead, { ref: i.intent_ref, reason: 'delivery_limit', queue: LEDGER_QUEUE });
  assert.equal(await phase(i.intent_ref), 'open');
});

test('currency XXX: the receipt is rejected into the dead-letter exchange (rejected)', async () => {
  const i = await p.createIntent(700, 'XXX');
  const dead = await waitFor('dead-lettered', async () =>
    (await deadLetters()).find((d) => d.ref === i.intent_ref),
  );
  assert.deepEqual(dead, { ref: i.intent_ref, reason: 'rejected', queue: 'payments.receipts' });
});

test('over the audit limit: the audit copy is rejected on a queue without a DLX, and gone', async () => {
  const i = await p.createIntent(AUDIT_LIMIT_CENTS);
  await p
    .proc('audit')
    .waitForLog(
      (l) => l.msg === 'over the audit limit: rejected' && l.intent_ref === i.intent_ref,
      'the audit reject',
    );
  assert.ok(!(await deadLetters()).some((d) => d.ref === i.intent_ref));
  assert.equal((await p.queue(AUDIT_QUEUE)).messageCount, 0);
});

test('a ledger that dies before its ack: the redelivery books nothing twice', async () => {
  await p.stop('ledger');
  const crashing = await p.start('ledger', { FAULT_LEDGER_CRASH_BEFORE_ACK: '1' }, 'ledger-crash');
  const i = await p.createIntent(990);
  assert.equal(await crashing.exited, 1);
  assert.equal(await phase(i.intent_ref), 'booked');
  const again = await p.start('ledger', {}, 'ledger-again');
  await again.waitForLog(
    (l) => l.msg === 'already booked' && l.intent_ref === i.intent_ref,
    'the redelivery',
  );
  const n = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM ledger_entries WHERE intent_ref = $1',
    [i.intent_ref],
  );
  assert.equal(n.rows[0]?.n, 1);
});
