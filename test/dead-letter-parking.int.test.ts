// Parking dead letters (exporter/src/deadletters/): every message of a dead-letter queue ends in
// the store exactly once, whatever happens to the exporter or the store on the way. Real broker,
// real PostgreSQL; the dead letters are made by the broker itself (a work queue whose messages
// expire at once into its dead-letter exchange), so they carry the broker's own x-death.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import pg from 'pg';
import { management, waitFor, type TestDatabase, type TestVhost, TcpGate } from '@acktrail/testing';
import {
  DLQ,
  deadLetterBench,
  type DeadLetterBench,
} from '@acktrail/exporter/testing/dead-letter-broker';
import { TestExporter, partUp, startExporterProcess } from '@acktrail/exporter/testing';
import { readOpenMetrics } from '@acktrail/exporter/testing/openmetrics';

const KEY = randomBytes(32).toString('base64');
const OPERATOR = 'operator-token-for-parking-tests';
const READER = 'reader-token-for-parking-tests';

let vhost: TestVhost;
let store: TestDatabase;
let db: pg.Client;
let bench: DeadLetterBench;

before(async () => {
  bench = await deadLetterBench();
  ({ vhost, store, db } = bench);
});

after(() => bench.drop());

const config = (over: Record<string, unknown> = {}) => ({
  rabbitmq: { enabled: false },
  // jobs.late.dlq does not exist until a test declares it: the other queue is parked meanwhile.
  deadLetters: {
    enabled: true,
    url: vhost.url,
    queues: [{ queue: 'jobs.late.dlq' }, { queue: DLQ }],
    ...over,
  },
});
const env = (storeUrl = store.url) => ({
  ACKTRAIL_DATABASE_URL: storeUrl,
  ACKTRAIL_DEAD_LETTER_KEY: KEY,
  ACKTRAIL_API_TOKEN: READER,
  ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
});

async function inProcess(e: Record<string, string>, c: unknown) {
  const exporter = await TestExporter.start(e, c);
  await exporter.exporter.ready;
  return exporter;
}

/**
 * Sends messages through the expiring work queue; resolves once the DLQ holds `expected` (null:
 * once the broker confirmed them).
 */
async function deadLetter(ids: string[], body: (id: string) => Buffer, expected: number | null) {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  for (const id of ids)
    ch.publish('jobs', 'job', body(id), {
      messageId: id,
      persistent: true,
      headers: { 'x-app-note': 'kept' },
    });
  await ch.waitForConfirms();
  await conn.close();
  if (expected !== null)
    await waitFor(`${expected} messages in ${DLQ}`, async () => (await depth()) === expected);
}

/** Ready and unacknowledged messages of the DLQ, from the management API. */
async function depth(): Promise<number> {
  const q = (await management(
    `/queues/${encodeURIComponent(vhost.name)}/${encodeURIComponent(DLQ)}`,
  )) as { messages?: number };
  return q.messages ?? -1;
}

const ready = async () => {
  const conn = await amqp.connect(vhost.url);
  try {
    return (await (await conn.createChannel()).checkQueue(DLQ)).messageCount;
  } finally {
    await conn.close();
  }
};

const parked = async (prefix: string) =>
  (
    await db.query<{ event_id: string; n: number }>(
      `SELECT event_id, count(*)::int AS n FROM dead_letters WHERE event_id LIKE $1 || '%'
        GROUP BY event_id`,
      [prefix],
    )
  ).rows;

/** Waits until the rows of events starting with `prefix` are in exactly these states. */
async function statesReach(prefix: string, want: Record<string, number>) {
  await waitFor(`${prefix}* in ${JSON.stringify(want)}`, async () => {
    const r = await db.query<{ state: string; n: number }>(
      `SELECT state, count(*)::int AS n FROM dead_letters WHERE event_id LIKE $1 || '%'
        GROUP BY state ORDER BY state`,
      [prefix],
    );
    return (
      JSON.stringify(Object.fromEntries(r.rows.map((x) => [x.state, x.n]))) === JSON.stringify(want)
    );
  });
}

test('kill -9 mid-way: every dead letter is parked exactly once, none is lost', async () => {
  const ids = Array.from({ length: 400 }, (_, i) => `kill-${String(i).padStart(3, '0')}`);
  await deadLetter(
    ids,
    (id) => Buffer.from(JSON.stringify({ id, email: `${id}@example.com` })),
    400,
  );

  const first = await startExporterProcess(env(), config({ prefetch: 5 }));
  await waitFor('some dead letters parked', async () => (await parked('kill-')).length >= 20);
  await first.proc.kill();
  const afterKill = await parked('kill-');
  assert.ok(afterKill.length < 400, `killed mid-way (${afterKill.length} parked)`);
  // Nothing is lost: what is not parked is back in the queue.
  await waitFor('the unacked messages back in the queue', async () => {
    const left = await ready();
    return left + (await parked('kill-')).length >= 400;
  });

  const second = await startExporterProcess(env(), config({ prefetch: 5 }));
  try {
    await waitFor('the queue drained', async () => (await ready()) === 0 && (await depth()) === 0);
    const rows = await parked('kill-');
    assert.deepEqual(rows.map((r) => r.event_id).sort(), ids, 'every message parked');
    assert.deepEqual(
      rows.filter((r) => r.n > 1),
      [],
      'a message committed but not acked before the kill is parked once',
    );
  } finally {
    await second.proc.stop();
  }
});

test('store down: dead letters stay in the queue until it is back, then are parked', async () => {
  const gate = await TcpGate.start(5432);
  const viaGate = new URL(store.url);
  viaGate.port = String(gate.port);
  const exporter = await inProcess(env(viaGate.toString()), config());
  try {
    gate.shut();
    const ids = Array.from({ length: 20 }, (_, i) => `down-${i}`);
    await deadLetter(ids, (id) => Buffer.from(id), 20);
    await waitFor(
      'parking reported down',
      async () => (await partUp(exporter.url, 'dead_letters')) === false,
    );
    assert.equal((await parked('down-')).length, 0);
    assert.equal(await depth(), 20, 'all still in the queue (ready or held unacked)');

    gate.reopen();
    await waitFor(
      'parked after the store came back',
      async () => (await parked('down-')).length === 20,
    );
    await waitFor('the queue drained', async () => (await ready()) === 0 && (await depth()) === 0);
    assert.deepEqual(
      (await parked('down-')).filter((r) => r.n > 1),
      [],
    );
  } finally {
    await exporter.close();
    await gate.close();
  }
});

test('more too-large messages than the prefetch: each is set aside (a confirmed copy, then acked), parking goes on', async () => {
  const exporter = await inProcess(env(), config({ maxMessageBytes: 4096, prefetch: 4 }));
  const aside = 'acktrail.dead-letters.set-aside';
  try {
    const ids = Array.from({ length: 15 }, (_, i) => `aside-${i}`);
    const big = (id: string) => Number(id.split('-')[1]) % 3 !== 2; // 10 big, 5 small
    await deadLetter(
      ids,
      (id) => Buffer.from(JSON.stringify({ id, pad: big(id) ? 'x'.repeat(10_000) : '' })),
      null,
    );
    await statesReach('aside-', { parked: 5, set_aside: 10 });
    await waitFor(`${DLQ} empty: every one acked`, async () => (await depth()) === 0);
    // The copies, whole, with where they came from.
    const conn = await amqp.connect(vhost.url);
    try {
      const ch = await conn.createChannel();
      const copies: amqp.GetMessage[] = [];
      for (let m = await ch.get(aside); m; m = await ch.get(aside)) copies.push(m);
      assert.deepEqual(
        copies.map((c) => c.properties.messageId as string).sort(),
        ids.filter(big).sort(),
      );
      for (const c of copies) {
        const headers = c.properties.headers!;
        assert.equal(headers['x-acktrail-set-aside-from'], DLQ);
        const own = headers['x-acktrail-set-aside-headers'] as Record<string, unknown>;
        assert.equal(own['x-app-note'], 'kept');
        assert.equal((own['x-death'] as { queue: string }[])[0]!.queue, 'jobs.work');
        assert.ok(c.content.length > 10_000);
      }
      ch.ackAll();
    } finally {
      await conn.close();
    }
    const scrape = await exporter.scrape();
    assert.equal(scrape.value('acktrail_dead_letters_set_aside_total', { queue: DLQ }), 10);
    assert.equal(scrape.value('acktrail_dead_letters_too_large', { queue: DLQ }), 0);
  } finally {
    await exporter.close();
  }
});

test('a too-large dead letter naming other queues (CC, BCC) is set aside to its queue alone, by a user that may not write the default exchange', async () => {
  // The documented permissions (docs/dead-letters.md): configure and write on the set-aside name
  // only, read on the dead-letter queues and the set-aside exchange; nothing on amq.default.
  const v = encodeURIComponent(vhost.name);
  const user = `parker-${vhost.name}`;
  const aside = 'acktrail.dead-letters.set-aside';
  const victim = 'jobs.victim';
  await management(`/users/${encodeURIComponent(user)}`, {
    method: 'PUT',
    body: JSON.stringify({ password: 'parker-password', tags: '' }),
  });
  await management(`/permissions/${v}/${encodeURIComponent(user)}`, {
    method: 'PUT',
    body: JSON.stringify({
      configure: '^acktrail\\.dead-letters\\.set-aside$',
      write: '^acktrail\\.dead-letters\\.set-aside$',
      read: '^(jobs\\.dlq|jobs\\.late\\.dlq|acktrail\\.dead-letters\\.set-aside)$',
    }),
  });
  const asParker = new URL(vhost.url);
  asParker.username = encodeURIComponent(user);
  asParker.password = 'parker-password';
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue(victim, { durable: true });
  const exporter = await inProcess(
    env(),
    config({ url: asParker.toString(), maxMessageBytes: 4096 }),
  );
  try {
    // Written to the dead-letter exchange directly, as an app user that may write it can: there
    // the CC routes nowhere (jobs.dlx is a fanout bound to the DLQ alone), on the default
    // exchange it would reach the victim by name.
    const headers = { CC: [victim], BCC: [victim], cc: [victim], 'x-app-note': 'kept' };
    ch.publish('jobs.dlx', '', Buffer.alloc(10_000, 'x'), {
      messageId: 'forged-cc',
      persistent: true,
      headers,
    });
    await ch.waitForConfirms();
    await statesReach('forged-cc', { set_aside: 1 });
    // The copy was confirmed before the row was marked: the broker had routed it by then.
    assert.equal((await ch.checkQueue(victim)).messageCount, 0, 'nothing reached the victim');
    const copies: amqp.GetMessage[] = [];
    for (let m = await ch.get(aside, { noAck: true }); m; m = await ch.get(aside, { noAck: true }))
      if (m.properties.messageId === 'forged-cc') copies.push(m);
    assert.equal(copies.length, 1, 'one copy in the set-aside queue');
    const copy = copies[0]!;
    const top = copy.properties.headers!;
    assert.deepEqual(Object.keys(top).sort(), [
      'x-acktrail-set-aside-from',
      'x-acktrail-set-aside-headers',
      'x-acktrail-set-aside-id',
    ]);
    // The broker drops BCC on delivery: the DLQ's copy, and so the set-aside one, has the rest.
    const own = top['x-acktrail-set-aside-headers'] as Record<string, unknown>;
    assert.deepEqual(own.CC, [victim]);
    assert.deepEqual(own.cc, [victim]);
    assert.equal(own['x-app-note'], 'kept');
  } finally {
    await exporter.close();
    await conn.close();
    await management(`/users/${encodeURIComponent(user)}`, { method: 'DELETE' });
  }
});

test('sealed at rest; without a set-aside queue a too-large message stays in the queue, listed once; bodies for operators only', async () => {
  const exporter = await inProcess(env(), config({ maxMessageBytes: 4096, setAsideQueue: null }));
  try {
    await deadLetter(
      // The large one between the others: acking the one after it must not take it along.
      ['seal-1', 'seal-big', 'seal-2'],
      (id) =>
        Buffer.from(
          JSON.stringify({
            id,
            email: 'private.person@example.com',
            pad: id === 'seal-big' ? 'x'.repeat(10_000) : '',
          }),
        ),
      1, // the exporter parks the others as they come
    );
    await statesReach('seal-', { parked: 2, too_large: 1 });
    // The broker's figures lag a little: wait for the acks to show, then look.
    const left = await waitFor('the parked ones acked', async () => {
      const n = await depth();
      return n >= 0 && n <= 1 ? { n } : null;
    });
    assert.equal(left.n, 1, 'the large one stays in the queue');
    const scrape = await exporter.scrape();
    assert.equal(scrape.value('acktrail_dead_letters_too_large', { queue: DLQ }), 1);

    const raw = await db.query<{
      sealed: Buffer | null;
      deaths: { reason: string; queue: string }[];
      reason: string;
    }>(`SELECT sealed, deaths, reason FROM dead_letters WHERE event_id = 'seal-1'`);
    const row = raw.rows[0]!;
    assert.ok(
      row.sealed && !row.sealed.includes('private.person'),
      'the body is not stored in the clear',
    );
    assert.equal(row.deaths[0]!.reason, 'expired');
    assert.equal(row.deaths[0]!.queue, 'jobs.work');

    const list = (await (
      await fetch(`${exporter.url}/api/dead-letters?event_id=seal-1`, {
        headers: { authorization: `Bearer ${READER}` },
      })
    ).json()) as { deadLetters: { id: string; replayTo: unknown; reason: string }[] };
    const one = list.deadLetters[0]!;
    assert.deepEqual(one.replayTo, { exchange: 'jobs', routingKey: 'job', source: 'x-death' });
    const asReader = (await (
      await fetch(`${exporter.url}/api/dead-letters/${one.id}`, {
        headers: { authorization: `Bearer ${READER}` },
      })
    ).json()) as { content: unknown };
    assert.equal(asReader.content, null, 'a reader sees no body');
    const asOperator = (await (
      await fetch(`${exporter.url}/api/dead-letters/${one.id}`, {
        headers: { authorization: `Bearer ${OPERATOR}` },
      })
    ).json()) as {
      content: {
        body: { text: string };
        headers: Record<string, unknown>;
        properties: { messageId: string };
      };
    };
    assert.match(asOperator.content.body.text, /private\.person@example\.com/);
    assert.equal(asOperator.content.headers['x-app-note'], 'kept');
    assert.equal(asOperator.content.properties.messageId, 'seal-1');
  } finally {
    await exporter.close();
  }
  await waitFor(
    'the large one back to ready once acktrail let go',
    async () => (await ready()) === 1,
  );
});

test('allDeadLetterQueues: the queues the broker says are dead-letter queues are parked', async () => {
  const exporter = await inProcess(env(), {
    rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
    deadLetters: { enabled: true, url: vhost.url, allDeadLetterQueues: true },
  });
  try {
    await waitFor(
      'jobs.dlq found by its role',
      async () => (await partUp(exporter.url, 'dead_letters')) === true,
    );
    await deadLetter(['all-1', 'all-2', 'all-3'], (id) => Buffer.from(id), null);
    await waitFor(
      'parked from the discovered queue',
      async () => (await parked('all-')).length === 3,
    );
    const scrape = await exporter.scrape();
    assert.equal(
      scrape.value('acktrail_dead_letters_parked_total', { queue: DLQ, reason: 'expired' }),
      3,
    );
    // With parking on, the OpenMetrics exposition still declares each family once.
    const om = await readOpenMetrics(exporter.url);
    assert.equal(om.families.acktrail_dead_letters_parked, 'counter');
    assert.equal(om.families.acktrail_dead_letters_waiting, 'gauge');
  } finally {
    await exporter.close();
  }
});

test('a configured queue that appears later is parked once it is there', async () => {
  const exporter = await inProcess(env(), config());
  try {
    await waitFor(
      'parking started without the late queue',
      async () => (await partUp(exporter.url, 'dead_letters')) === true,
    );
    const conn = await amqp.connect(vhost.url);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue('jobs.late.dlq', { durable: true });
    ch.sendToQueue('jobs.late.dlq', Buffer.from('late'), { messageId: 'late-1' });
    await ch.waitForConfirms();
    await conn.close();
    await waitFor('the late queue parked', async () => (await parked('late-')).length === 1);
  } finally {
    await exporter.close();
  }
});

test('a replay the broker returns stays parked with the error; discard needs a reason; both audited', async () => {
  const exporter = await inProcess(
    env(),
    config({ queues: [{ queue: DLQ, replayTo: { exchange: 'jobs', routingKey: 'nowhere' } }] }),
  );
  const api = async (path: string, token: string, body?: unknown) => {
    const res = await fetch(`${exporter.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  try {
    await deadLetter(['unr-1', 'unr-2'], (id) => Buffer.from(id), null);
    await waitFor('both parked', async () => (await parked('unr-')).length === 2);
    const listed = await api(`/api/dead-letters?event_id=unr-1`, READER);
    const id = (listed.body.deadLetters as { id: string }[])[0]!.id;

    const replay = await api('/api/dead-letters/replay', OPERATOR, { ids: [id] });
    assert.equal(replay.status, 502);
    assert.equal(replay.body.outcome, 'unroutable');
    const after = await api(`/api/dead-letters/${id}`, READER);
    assert.equal(after.body.state, 'parked');
    assert.match(String(after.body.lastError), /^unroutable: no queue is bound to exchange "jobs"/);

    const other = (
      (await api(`/api/dead-letters?event_id=unr-2`, READER)).body.deadLetters as { id: string }[]
    )[0]!.id;
    const noReason = await api('/api/dead-letters/discard', OPERATOR, { ids: [other] });
    assert.equal(noReason.status, 400);
    assert.match(String(noReason.body.error), /reason/);
    const byReader = await api('/api/dead-letters/discard', READER, { ids: [other], reason: 'x' });
    assert.equal(byReader.status, 403);
    const discard = await api('/api/dead-letters/discard', OPERATOR, {
      ids: [other],
      reason: 'test data',
    });
    assert.deepEqual(discard.body, { discarded: 1 });
    const sealed = await db.query<{ state: string; sealed: Buffer | null }>(
      `SELECT state, sealed FROM dead_letters WHERE event_id = 'unr-2'`,
    );
    assert.deepEqual(sealed.rows, [{ state: 'discarded', sealed: null }], 'the body is gone');

    const audit = await api('/api/dead-letters/audit?limit=10', READER);
    const mine = (
      audit.body.entries as {
        eventId: string | null;
        action: string;
        outcome: string;
        detail: string;
      }[]
    )
      .filter((e) => e.eventId?.startsWith('unr-'))
      .map((e) => [e.eventId, e.action, e.outcome]);
    assert.deepEqual(mine, [
      ['unr-2', 'discard', 'discarded'],
      ['unr-1', 'replay', 'unroutable'],
    ]);
    const scrape = await exporter.scrape();
    assert.equal(
      scrape.value('acktrail_dead_letter_replays_total', { queue: DLQ, outcome: 'unroutable' }),
      1,
    );
    assert.equal(scrape.value('acktrail_dead_letter_discards_total', { queue: DLQ }), 1);
  } finally {
    await exporter.close();
  }
});
