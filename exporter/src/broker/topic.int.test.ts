// The topic matcher against the broker itself: RabbitMQ routes a message for every routing key to
// every queue bound by every binding key (its tutorial's table, the edges of its word split, and a
// generated set with `*` and `#` at every place), and what it delivered is what topicMatches says,
// and what PostgreSQL answers for topicSqlRegex (the journeys' queue heads) too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import amqp from 'amqplib';
import pg from 'pg';
import { ADMIN_DATABASE_URL, createTestVhost, type TestVhost } from '@acktrail/testing';
import { TOPIC_CASES } from '../../testing/topic-cases.js';
import { TOPIC_SUBJECT_SQL, topicMatches, topicSqlRegex } from './topic.js';

let vhost: TestVhost;
before(async () => {
  vhost = await createTestVhost('acktrail_topic');
});
after(async () => {
  await vhost.drop();
});

/** Every combination of up to three words of `words`, joined by dots ('' included). */
function keysOf(words: readonly string[], max: number): string[] {
  let level = [''];
  const all = new Set(level);
  for (let n = 1; n <= max; n++) {
    level = level.flatMap((k) => words.map((w) => (n === 1 ? w : `${k}.${w}`)));
    for (const k of level) all.add(k);
  }
  return [...all];
}

const BINDINGS = [
  ...new Set([...TOPIC_CASES.map(([b]) => b), ...keysOf(['a', '*', '#'], 3), 'b.#.a', '#.b.*']),
];
const KEYS = [...new Set([...TOPIC_CASES.map(([, k]) => k), ...keysOf(['a', 'b', ''], 3)])];

test('RabbitMQ routes each key to the queues whose binding keys topicMatches says', async () => {
  const conn = await amqp.connect(vhost.url);
  try {
    const ch = await conn.createConfirmChannel();
    await ch.assertExchange('agree', 'topic', { durable: false });
    for (const [i, binding] of BINDINGS.entries()) {
      await ch.assertQueue(`b${i}`, { durable: false });
      await ch.bindQueue(`b${i}`, 'agree', binding);
    }
    for (const [j, key] of KEYS.entries())
      ch.publish('agree', key, Buffer.from(String(j)), { messageId: String(j) });
    await ch.waitForConfirms();
    const mismatches: string[] = [];
    for (const [i, binding] of BINDINGS.entries()) {
      const got = new Set<string>();
      for (
        let m = await ch.get(`b${i}`, { noAck: true });
        m;
        m = await ch.get(`b${i}`, { noAck: true })
      )
        got.add(KEYS[Number(m.content.toString())]!);
      for (const key of KEYS)
        if (got.has(key) !== topicMatches(binding, key))
          mismatches.push(
            `${JSON.stringify(binding)} ~ ${JSON.stringify(key)}: broker ${got.has(key)}`,
          );
    }
    assert.deepEqual(mismatches, [], `${BINDINGS.length} bindings x ${KEYS.length} keys`);
  } finally {
    await conn.close();
  }
});

test("PostgreSQL's answer for the SQL form is the matcher's, for every pair", async () => {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    const pairs = BINDINGS.flatMap((b) => KEYS.map((k) => [b, k] as const));
    const res = await client.query<{ matches: boolean }>(
      `SELECT ${TOPIC_SUBJECT_SQL('t.key')} ~ t.regex AS matches
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(regex, key, n) ORDER BY t.n`,
      [pairs.map(([b]) => topicSqlRegex(b)), pairs.map(([, k]) => k)],
    );
    const mismatches = pairs.filter(([b, k], i) => res.rows[i]!.matches !== topicMatches(b, k));
    assert.deepEqual(mismatches, []);
    // The binding that held V8 for seconds, against a key that fails at its end: answered.
    const hostile = await client.query<{ matches: boolean }>(
      `SELECT ${TOPIC_SUBJECT_SQL('$1::text')} ~ $2 AS matches`,
      [
        Array.from({ length: 127 }, (_, i) => `w${i}`).join('.'),
        topicSqlRegex(`${'#.'.repeat(60)}*.#.z`),
      ],
    );
    assert.equal(hostile.rows[0]!.matches, false);
  } finally {
    await client.end();
  }
});
