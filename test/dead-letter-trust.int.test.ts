// Dead-letter parking and replay, tried as a producer that may publish only to its own exchange
// would: messages whose headers (x-original-*, a forged x-death, CC) name where a replay should
// go, a NUL byte in what is stored in the clear, a row the store refuses; and replay jobs shared
// by two exporters on one store. Real broker (the queue catalog reads its topology), real
// PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import pg from 'pg';
import {
  REPO_ROOT,
  management,
  waitFor,
  type TestDatabase,
  type TestVhost,
} from '@acktrail/testing';
import {
  DLQ,
  deadLetterBench,
  type DeadLetterBench,
} from '@acktrail/exporter/testing/dead-letter-broker';
import { TestExporter, partUp, writeConfig } from '@acktrail/exporter/testing';
import { keyId } from '@acktrail/exporter/testing/parts';

const KEY = randomBytes(32).toString('base64');
const OPERATOR = 'operator-token-for-trust-tests';
const READER = 'reader-token-for-trust-tests';

let vhost: TestVhost;
let store: TestDatabase;
let db: pg.Client;
let bench: DeadLetterBench;

before(async () => {
  bench = await deadLetterBench(async (ch) => {
    // Queues a replay must never reach: Celery's, by the default exchange; one a CC would add.
    await ch.assertQueue('celery', { durable: true });
    await ch.assertQueue('victim', { durable: true });
    await ch.bindQueue('victim', 'jobs', 'victim');
    // A work queue whose name looks like a dead-letter queue's, and that is none.
    await ch.assertQueue('email.errors', { durable: true });
  });
  ({ vhost, store, db } = bench);
});

after(() => bench.drop());

const config = (replay: object = {}) => ({
  rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
  deadLetters: {
    enabled: true,
    url: vhost.url,
    queues: [{ queue: DLQ }],
    // Replayed messages come straight back (the work queue expires them): never a reason to stop.
    replay: { stopAfterFailedShare: 1, ratePerSecond: 200, sourceQueues: ['jobs.work'], ...replay },
  },
});
const env = {
  ACKTRAIL_DATABASE_URL: '',
  ACKTRAIL_DEAD_LETTER_KEY: KEY,
  ACKTRAIL_API_TOKEN: READER,
  ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
};

async function start(c: object = config()) {
  const exporter = await TestExporter.start({ ...env, ACKTRAIL_DATABASE_URL: store.url }, c);
  await exporter.exporter.ready;
  await waitFor('parking', async () => (await partUp(exporter.url, 'dead_letters')) === true);
  // The catalog knows the topology once the stats collector ran (a scrape runs it).
  await waitFor(
    'the topology read',
    async () =>
      (await exporter.scrape()).value('acktrail_queue_info', {
        vhost: vhost.name,
        queue: 'jobs.work',
      }) === 1,
  );
  return exporter;
}

async function api(
  base: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Publishes messages: through the expiring work queue (the broker dead-letters them), or straight into the DLQ. */
async function publish(
  messages: { id: string; headers?: Record<string, unknown>; direct?: boolean }[],
) {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  for (const m of messages) {
    const options = { messageId: m.id, persistent: true, headers: m.headers ?? {} };
    if (m.direct) ch.sendToQueue(DLQ, Buffer.from(m.id), options);
    else ch.publish('jobs', 'job', Buffer.from(m.id), options);
  }
  await ch.waitForConfirms();
  await conn.close();
}

const states = async (prefix: string) =>
  (
    await db.query<{ state: string; n: number }>(
      `SELECT state, count(*)::int AS n FROM dead_letters WHERE event_id LIKE $1 || '%'
        GROUP BY state ORDER BY state`,
      [prefix],
    )
  ).rows;
const idsOf = async (prefix: string) =>
  (
    await db.query<{ id: string; event_id: string }>(
      `SELECT id::text, event_id FROM dead_letters WHERE event_id LIKE $1 || '%' AND state = 'parked'
        ORDER BY id`,
      [prefix],
    )
  ).rows;
/** Messages ready in a queue and its consumers, from the broker at once (no statistics lag). */
async function check(queue: string) {
  const conn = await amqp.connect(vhost.url);
  try {
    return await (await conn.createChannel()).checkQueue(queue);
  } finally {
    await conn.close();
  }
}
const ready = async (queue: string) => (await check(queue)).messageCount;
/** Ready and unacknowledged, from the management API (its statistics lag a few seconds). */
const drained = async (queue: string) =>
  (
    (await management(`/queues/${encodeURIComponent(vhost.name)}/${queue}`)) as {
      messages?: number;
    }
  ).messages === 0;

test('a NUL byte in x-original-* or a forged x-death reason parks like any other message', async () => {
  const exporter = await start();
  try {
    const nul = {
      'x-original-exchange': 'jobs\u0000',
      'x-original-routingKey': 'j\u0000ob',
      'x-death': [
        {
          queue: 'jobs.work\u0000',
          reason: 'rejected\u0000',
          count: 1,
          exchange: 'jobs',
          'routing-keys': ['job\u0000'],
        },
      ],
    };
    const messages = Array.from({ length: 200 }, (_, i) => ({
      id: `nul-${i}`,
      direct: true,
      headers: i === 77 ? nul : {},
    }));
    await publish(messages);
    await waitFor('all 200 parked', async () => {
      const s = await states('nul-');
      return s.length === 1 && s[0]!.n === 200;
    });
    await waitFor('the queue drained', () => drained(DLQ));
    const row = (
      await db.query<{ replay_exchange: string; deaths: { reason: string }[] }>(
        `SELECT replay_exchange, deaths FROM dead_letters WHERE event_id = 'nul-77'`,
      )
    ).rows[0]!;
    assert.equal(row.replay_exchange, 'jobs');
    assert.equal(row.deaths[0]!.reason, 'rejected');
  } finally {
    await exporter.close();
  }
});

test('a message the store refuses is set aside as unstorable; the other 199 park', async () => {
  const exporter = await start();
  // A store that refuses one row for what it holds, as PostgreSQL would for a value it cannot keep.
  await db.query(
    `ALTER TABLE dead_letters ADD CONSTRAINT refuse_poison CHECK (reason NOT LIKE '%poison-pill%')`,
  );
  try {
    const messages = Array.from({ length: 200 }, (_, i) => ({
      id: `pill-${i}`,
      direct: true,
      headers: i === 123 ? { 'x-acktrail-dead-letter-reason': 'poison-pill' } : {},
    }));
    await publish(messages);
    await waitFor('199 parked and one set aside', async () => {
      const s = await states('pill-');
      return (
        JSON.stringify(s) ===
        JSON.stringify([
          { state: 'parked', n: 199 },
          { state: 'unstorable', n: 1 },
        ])
      );
    });
    await waitFor('the queue drained', () => drained(DLQ));
    const aside = await api(exporter.url, '/api/dead-letters?state=unstorable', READER);
    const listed = aside.body.deadLetters as { eventId: string; reason: string }[];
    assert.deepEqual(
      listed.map((d) => d.eventId),
      ['pill-123'],
    );
    assert.match(listed[0]!.reason, /refuse_poison/);
    const scrape = await exporter.scrape();
    assert.equal(scrape.value('acktrail_dead_letters_unstorable_total', { queue: DLQ }), 1);
    assert.equal(await partUp(exporter.url, 'dead_letters'), true, 'parking is not "down"');
    // Its sealed content is kept for an operator to read, and goes when one discards it.
    const { id } = (aside.body.deadLetters as { id: string }[])[0]!;
    const discarded = await api(exporter.url, '/api/dead-letters/discard', OPERATOR, {
      ids: [id],
      reason: 'unstorable: read and handled',
    });
    assert.deepEqual(discarded.body, { discarded: 1 });
    const row = await db.query<{ state: string; sealed: Buffer | null }>(
      'SELECT state, sealed FROM dead_letters WHERE id = $1',
      [id],
    );
    assert.deepEqual(row.rows[0], { state: 'discarded', sealed: null });
  } finally {
    await db.query('ALTER TABLE dead_letters DROP CONSTRAINT refuse_poison');
    await exporter.close();
  }
});

test('allDeadLetterQueues parks dead-letter targets by policy only: not a queue named like one, not a work queue an app user aims its own queue at', async () => {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  ch.sendToQueue('email.errors', Buffer.from('work'), { messageId: 'decoy-1' });
  // An app user's queue that "dead-letters" to Celery's work queue by its own arguments.
  await ch.assertQueue('trap.aimed', {
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'celery' },
  });
  ch.sendToQueue('celery', Buffer.from('a task'), { messageId: 'task-1' });
  await ch.waitForConfirms();
  await conn.close();
  const exporter = await start({
    ...config(),
    deadLetters: { enabled: true, url: vhost.url, allDeadLetterQueues: true },
  });
  try {
    await publish([{ id: 'found-1' }]);
    await waitFor('jobs.dlq parked', async () => (await states('found-')).length === 1);
    const decoy = await check('email.errors');
    assert.deepEqual(
      [decoy.messageCount, decoy.consumerCount],
      [1, 0],
      'email.errors is left alone',
    );
    assert.deepEqual(await states('decoy-'), []);
    const celery = await check('celery');
    assert.deepEqual(
      [celery.messageCount, celery.consumerCount],
      [1, 0],
      "Celery's queue is left to its workers",
    );
    assert.deepEqual(await states('task-'), []);
    await management(`/queues/${encodeURIComponent(vhost.name)}/celery/contents`, {
      method: 'DELETE',
    });
    // Out of the way of the replay test's group (same queue, same reason).
    const [found] = await idsOf('found-');
    await api(exporter.url, '/api/dead-letters/discard', OPERATOR, {
      ids: [found!.id],
      reason: 'test',
    });
  } finally {
    await exporter.close();
  }
});

test('a replay goes only where config or the broker allows: a poisoned message in a group is refused, the rest replay', async () => {
  const exporter = await start();
  try {
    const good = { 'x-original-exchange': 'jobs', 'x-original-routingKey': 'job' };
    const messages = [
      ...Array.from({ length: 30 }, (_, i) => ({ id: `grp-${i}`, headers: good })),
      // Dead-lettered by the broker like the rest, but its headers name Celery's queue.
      {
        id: 'grp-poison',
        headers: { 'x-original-exchange': '', 'x-original-routingKey': 'celery' },
      },
      // Straight into the DLQ with an x-death of its own making.
      {
        id: 'grp-forged',
        direct: true,
        headers: {
          'x-death': [
            {
              queue: 'jobs.work',
              reason: 'rejected',
              count: 1,
              exchange: '',
              'routing-keys': ['celery'],
            },
          ],
        },
      },
      // A CC header would add a route to the replay.
      { id: 'grp-cc', headers: { ...good, CC: ['victim'] } },
    ];
    await publish(messages);
    await waitFor('33 parked', async () => (await idsOf('grp-')).length === 33);
    // The CC copy of the original publish is not what this test is about.
    await management(`/queues/${encodeURIComponent(vhost.name)}/victim/contents`, {
      method: 'DELETE',
    });
    const group = (
      (await api(exporter.url, `/api/dead-letters?event_id=grp-poison`, READER)).body
        .deadLetters as { groupId?: string; id: string }[]
    )[0]!;
    const one = await api(exporter.url, `/api/dead-letters/${group.id}`, READER);
    const groupId = one.body.groupId as string;

    const plan = await api(exporter.url, '/api/dead-letters/replay', OPERATOR, {
      group: groupId,
      dryRun: true,
    });
    assert.equal(plan.status, 200);
    const targets = plan.body.targets as Record<string, unknown>[];
    assert.deepEqual(
      targets.map(({ note: _, ...t }) => t),
      [
        {
          exchange: 'jobs',
          routingKey: 'job',
          source: 'headers',
          basis: 'claimed',
          reaches: ['jobs.work'],
          count: 31,
        },
      ],
    );
    assert.match(
      String(targets[0]!.note),
      /the message's own x-death names this target .* set deadLetters\.queues\[\]\.replayTo for jobs\.dlq/,
      'a target only x-death vouches for is shown as the message’s claim',
    );
    const refused = plan.body.refused as { reason: string; count: number; ids: string[] }[];
    assert.deepEqual(
      refused.map((r) => [r.count, r.ids]),
      [[1, [group.id]]],
    );
    assert.match(
      refused[0]!.reason,
      /exchange "", routing key "celery" \(from headers\) is not an allowed replay target: the default exchange/,
    );
    assert.equal((await idsOf('grp-')).length, 33, 'a dry run replays nothing');

    const started = await api(exporter.url, '/api/dead-letters/replay', OPERATOR, {
      group: groupId,
    });
    assert.equal(started.status, 202);
    const jobId = started.body.id as string;
    await waitFor('the job done', async () => {
      const j = await api(exporter.url, `/api/dead-letters/jobs/${jobId}`, READER);
      return j.body.state === 'done';
    });
    const job = (await api(exporter.url, `/api/dead-letters/jobs/${jobId}`, READER)).body;
    assert.deepEqual([job.replayed, job.failed], [31, 1]);
    // The forged x-death is in a group of its own (its own reason): replayed alone, refused.
    const forged = (await idsOf('grp-forged'))[0]!;
    const alone = await api(exporter.url, '/api/dead-letters/replay', OPERATOR, {
      ids: [forged.id],
    });
    assert.equal(alone.status, 409);
    assert.equal(alone.body.outcome, 'refused');
    const poisoned = await db.query<{ event_id: string; state: string; last_error: string }>(
      `SELECT event_id, state, last_error FROM dead_letters
        WHERE event_id IN ('grp-poison', 'grp-forged') AND replays = 0 ORDER BY event_id`,
    );
    assert.deepEqual(
      poisoned.rows.map((r) => [r.event_id, r.state]),
      [
        ['grp-forged', 'parked'],
        ['grp-poison', 'parked'],
      ],
    );
    assert.ok(
      poisoned.rows.every((r) => /^refused: .*not an allowed replay target/.test(r.last_error)),
    );
    assert.equal(await ready('celery'), 0, "nothing reached Celery's queue");
    assert.equal(await ready('victim'), 0, 'the CC header added no route');
    const scrape = await exporter.scrape();
    assert.equal(
      scrape.value('acktrail_dead_letter_replays_total', { queue: DLQ, outcome: 'refused' }),
      2,
    );
  } finally {
    await exporter.close();
  }
});

test('exchange-to-exchange bindings: a claimed target that reaches another queue is refused; a configured one shows both queues it reaches', async () => {
  // jobs -> audit.fanout -> audit.q: a publish to jobs with key job reaches jobs.work and audit.q.
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.assertExchange('audit.fanout', 'fanout', { durable: true });
  await ch.assertQueue('audit.q', { durable: true });
  await ch.bindQueue('audit.q', 'audit.fanout', '');
  await ch.bindExchange('audit.fanout', 'jobs', 'job');
  const exporter = await start();
  try {
    await publish([{ id: 'e2e-1' }]);
    await waitFor('parked', async () => (await idsOf('e2e-')).length === 1);
    await ch.purgeQueue('audit.q'); // the first publish's copy
    const { id } = (await idsOf('e2e-'))[0]!;
    const plan = await api(exporter.url, '/api/dead-letters/replay', OPERATOR, {
      ids: [id],
      dryRun: true,
    });
    assert.deepEqual(plan.body.targets, []);
    const [refused] = plan.body.refused as { reason: string }[];
    assert.match(refused!.reason, /routing key "job" reaches "audit\.q" besides "jobs\.work"/);
    const replay = await api(exporter.url, '/api/dead-letters/replay', OPERATOR, { ids: [id] });
    assert.equal(replay.status, 409);
    assert.equal(await ready('audit.q'), 0, 'the refused replay published nothing');
  } finally {
    await exporter.close();
  }
  // With the target configured, the plan says every queue it reaches, and the replay reaches them.
  const base = config();
  const replayTo = { exchange: 'jobs', routingKey: 'job' };
  const second = await start({
    ...base,
    deadLetters: { ...base.deadLetters, queues: [{ queue: DLQ, replayTo }] },
  });
  try {
    const { id } = (await idsOf('e2e-'))[0]!;
    const plan = await api(second.url, '/api/dead-letters/replay', OPERATOR, {
      ids: [id],
      dryRun: true,
    });
    const [target] = plan.body.targets as { basis: string; reaches: string[] }[];
    assert.equal(target!.basis, 'configured');
    assert.deepEqual(target!.reaches, ['audit.q', 'jobs.work']);
    const replay = await api(second.url, '/api/dead-letters/replay', OPERATOR, { ids: [id] });
    assert.equal(replay.status, 200);
    await waitFor('the copy in audit.q', async () => (await ready('audit.q')) === 1);
  } finally {
    await second.close();
    await ch.unbindExchange('audit.fanout', 'jobs', 'job');
    await ch.deleteQueue('audit.q');
    await conn.close();
  }
});

test('bulk replays live in the store: capped across exporters, listed and stopped from either', async () => {
  const slow = config({ ratePerSecond: 2, maxRunningJobs: 1 });
  const a = await start(slow);
  const b = await start(slow);
  try {
    await publish(Array.from({ length: 20 }, (_, i) => ({ id: `job-${i}` })));
    await waitFor('20 parked', async () => (await idsOf('job-')).length === 20);
    const ids = (await idsOf('job-')).map((r) => r.id);
    const first = await api(a.url, '/api/dead-letters/replay', OPERATOR, { ids: ids.slice(0, 10) });
    assert.equal(first.status, 202);
    const second = await api(b.url, '/api/dead-letters/replay', OPERATOR, { ids: ids.slice(10) });
    assert.equal(second.status, 429, 'one job at a time, whichever exporter is asked');
    assert.match(String(second.body.error), /maxRunningJobs/);

    const jobId = first.body.id as string;
    const listed = (await api(b.url, '/api/dead-letters/jobs', READER)).body.jobs as {
      id: string;
    }[];
    assert.ok(
      listed.some((j) => j.id === jobId),
      'the other exporter lists it',
    );
    // An operator whose name a header cannot carry as it is (Cyrillic, and a `+`): the dashboard
    // percent-encodes it.
    const name = 'Иван+ops@example.com';
    const stopped = await api(
      b.url,
      `/api/dead-letters/jobs/${jobId}/stop`,
      OPERATOR,
      {},
      {
        'x-acktrail-actor': encodeURIComponent(name),
      },
    );
    assert.equal(stopped.status, 200);
    await waitFor('the job stopped on the exporter that runs it', async () => {
      const j = await api(a.url, `/api/dead-letters/jobs/${jobId}`, READER);
      return j.body.state === 'stopped';
    });
    const job = (await api(a.url, `/api/dead-letters/jobs/${jobId}`, READER)).body;
    assert.ok((job.done as number) < 10, `stopped before the end (${String(job.done)} of 10)`);
    assert.equal(job.stopReason, `stopped by operator (${name})`);
    const audit = (await api(a.url, '/api/dead-letters/audit', READER)).body.entries as {
      actor: string;
      action: string;
      detail: string;
    }[];
    const stop = audit.find((e) => e.action === 'stop_replay_job');
    assert.ok(stop, 'the stop is audited');
    assert.equal(stop.actor, `operator (${name})`, 'with who asked');
    assert.match(stop.detail, new RegExp(`^job ${jobId}: \\d+ of 10 done$`));
  } finally {
    await a.close();
    await b.close();
  }
});

test('a bulk replay running when its exporter shuts down is saved as interrupted, saying why', async () => {
  const slow = config({ ratePerSecond: 2, maxRunningJobs: 1 });
  const a = await start(slow);
  const b = await start(slow);
  let aRuns = true;
  try {
    await publish(Array.from({ length: 10 }, (_, i) => ({ id: `leave-${i}` })));
    await waitFor('10 parked', async () => (await idsOf('leave-')).length === 10);
    const ids = (await idsOf('leave-')).map((r) => r.id);
    const started = await api(a.url, '/api/dead-letters/replay', OPERATOR, { ids });
    assert.equal(started.status, 202);
    const jobId = started.body.id as string;
    await a.close();
    aRuns = false;
    const job = (await api(b.url, `/api/dead-letters/jobs/${jobId}`, READER)).body;
    assert.equal(job.state, 'interrupted');
    assert.equal(job.stopReason, 'its exporter stopped');
    assert.ok((job.done as number) < 10, `ended before the last (${String(job.done)} of 10)`);
    // Its slot is free at once: another exporter starts the rest.
    const rest = ids.slice(job.done as number);
    const again = await api(b.url, '/api/dead-letters/replay', OPERATOR, { ids: rest });
    assert.equal(again.status, 202, JSON.stringify(again.body));
    await api(b.url, `/api/dead-letters/jobs/${again.body.id as string}/stop`, OPERATOR, {});
  } finally {
    if (aRuns) await a.close();
    await b.close();
  }
});

test('reading a body is audited; a replayed message loses its content after keepContentHours', async () => {
  const exporter = await start();
  try {
    await publish([{ id: 'erase-1' }]);
    await waitFor('parked', async () => (await idsOf('erase-')).length === 1);
    const { id } = (await idsOf('erase-'))[0]!;
    const read = await fetch(`${exporter.url}/api/dead-letters/${id}`, {
      headers: { authorization: `Bearer ${OPERATOR}`, 'x-acktrail-actor': 'dora' },
    });
    assert.equal(read.status, 200);
    const replay = await api(exporter.url, '/api/dead-letters/replay', OPERATOR, { ids: [id] });
    assert.equal(replay.body.outcome, 'replayed');
    const audit = (await api(exporter.url, '/api/dead-letters/audit?event_id=erase-1', READER)).body
      .entries as { actor: string; actorVerified: boolean; action: string }[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.actor, e.actorVerified]),
      [
        ['replay', 'operator', false],
        ['read_body', 'operator (dora)', false],
      ],
    );
    const { DeadLetterStore } = await import('@acktrail/exporter/testing/parts');
    const pool = new pg.Pool({ connectionString: store.url, max: 1 });
    try {
      const keepDay = await new DeadLetterStore(pool, 30).maintain(24);
      assert.equal(keepDay.erased, 0, 'kept for the grace period');
      const now = await new DeadLetterStore(pool, 30).maintain(0);
      assert.ok(now.erased >= 1);
    } finally {
      await pool.end();
    }
    const sealed = await db.query<{ sealed: Buffer | null }>(
      `SELECT sealed FROM dead_letters WHERE id = $1`,
      [id],
    );
    assert.equal(sealed.rows[0]!.sealed, null);
  } finally {
    await exporter.close();
  }
});

test('key rotation: old keys still open what they sealed; reseal moves every row to the new key', async () => {
  const oldKey = KEY;
  const newKey = randomBytes(32).toString('base64');
  const first = await start();
  try {
    await publish([{ id: 'rot-1' }, { id: 'rot-2' }]);
    await waitFor('parked under the old key', async () => (await idsOf('rot-')).length === 2);
  } finally {
    await first.close();
  }
  const rotated = { ...env, ACKTRAIL_DATABASE_URL: store.url, ACKTRAIL_DEAD_LETTER_KEY: newKey };
  const readBody = async (e: Record<string, string>) => {
    const exporter = await TestExporter.start(e, config());
    await exporter.exporter.ready;
    try {
      const { id } = (await idsOf('rot-'))[0]!;
      const res = await fetch(`${exporter.url}/api/dead-letters/${id}`, {
        headers: { authorization: `Bearer ${OPERATOR}` },
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { content: unknown; contentError?: string };
    } finally {
      await exporter.close();
    }
  };
  const without = await readBody(rotated);
  assert.equal(without.content, null, 'without the old key the body does not open');
  assert.match(String(without.contentError), /ACKTRAIL_DEAD_LETTER_KEYS/);
  // It names the key that sealed the row, and the one the exporter holds.
  const idOf = (k: string) => keyId(Buffer.from(k, 'base64'));
  assert.match(String(without.contentError), new RegExp(`sealed with key ${idOf(oldKey)},`));
  assert.match(String(without.contentError), new RegExp(`\\(key ${idOf(newKey)}\\)`));
  assert.ok((await readBody({ ...rotated, ACKTRAIL_DEAD_LETTER_KEYS: oldKey })).content);

  const cli = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'exporter/src/cli.ts', 'dead-letters', 'reseal'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        ...rotated,
        ACKTRAIL_DEAD_LETTER_KEYS: oldKey,
        ACKTRAIL_CONFIG: writeConfig(config()),
      },
    },
  );
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stderr, /resealed \d+ of \d+/);
  assert.match(cli.stdout, /resealed \d+ dead letters under the current key/);
  const keys = await db.query<{ key_id: string; n: number }>(
    `SELECT key_id, count(*)::int AS n FROM dead_letters WHERE sealed IS NOT NULL GROUP BY key_id`,
  );
  assert.deepEqual(
    keys.rows.map((r) => r.key_id),
    [keyId(Buffer.from(newKey, 'base64'))],
  );
  assert.ok((await readBody(rotated)).content, 'the new key alone opens every row');
});
