// Every settle known, whichever SDK traced the consumer: each shape's service (test/fixtures/
// sdk-service.ts) publishes and consumes real messages through RabbitMQ, its consumer staying
// attached as a service's does, its spans exactly as its instrumentation writes them. acktrail
// reads the broker as Prometheus scrapes it. Where the spans record no settle, the broker's
// evidence decides, marked inferred: an acked message reads "processed once" (its queue's counters
// account for every delivery, or no dead letter came where acktrail parks them), a rejected one
// dead-lettered (its parked copy), a requeued one processed once after it came back. On a queue
// without a dead-letter exchange, an ack is inferred from the counters and a reject is never read
// as processed. A redelivery whose spans arrive late overturns an inference at the next read.
// The counters' path again on RabbitMQ 4.0 as the official image ships it (/metrics/detailed).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import pg from 'pg';
import { RABBITMQ4, createTestVhost, type TestVhost, waitFor } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import {
  SHAPE_LIST,
  SHAPE_NAMES,
  recordsMessageId,
  recordsSettle,
  shapeNamed,
  type ShapeName,
} from '@acktrail/exporter/testing/sdk-shapes';
import { SdkService, type Instruction, type Published } from './fixtures/sdk-service.js';

const TOKEN = 'sdk-settles-token-0123456789ab';
const NAMES = SHAPE_NAMES;
/** The shapes whose spans record no settle: their counters are kept, their settles inferred. */
const SILENT: ShapeName[] = SHAPE_LIST.filter((s) => !recordsSettle(s)).map((s) => s.name);
/** Where support finds the message: its id where the SDK records one, else its trace id. */
const recordsId = (name: ShapeName) => recordsMessageId(shapeNamed(name));
/** The bound for the evidence to arrive. */
const EVIDENCE_MS = 90_000;

interface Journey {
  verdict: string;
  kinds: string[];
  deliveries: number;
  parked: { queue: string }[];
  inferred: { fate: string; evidence: string; words: string }[];
}

let vhost: TestVhost;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let scraping: NodeJS.Timeout;

/**
 * One shape's topology: work (dead-lettering into a parked queue) and plain (no dead-letter
 * exchange), each the one queue of its exchange (pika records the exchange and no routing key).
 */
async function declare(url: string, p: string, faultQueue: boolean) {
  const conn = await amqp.connect(url);
  const ch = await conn.createChannel();
  await ch.assertExchange(p, 'direct');
  await ch.assertExchange(`${p}.dlx`, 'fanout');
  await ch.assertQueue(`${p}.dlq`);
  await ch.bindQueue(`${p}.dlq`, `${p}.dlx`, '');
  await ch.assertQueue(`${p}.work`, { arguments: { 'x-dead-letter-exchange': `${p}.dlx` } });
  await ch.bindQueue(`${p}.work`, p, 'order.created');
  await ch.assertExchange(`${p}.p`, 'direct');
  await ch.assertQueue(`${p}.plain`);
  await ch.bindQueue(`${p}.plain`, `${p}.p`, 'plain');
  if (faultQueue) await ch.assertQueue(`${p}.work_error`);
  await conn.close();
}

/** Scrapes /metrics every half second, as Prometheus does: each new answer's counters are read. */
function scrape(e: TestExporter): NodeJS.Timeout {
  return setInterval(() => {
    void fetch(`${e.url}/metrics`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }, 500);
}

before(async () => {
  vhost = await createTestVhost('acktrail_settles');
  for (const name of NAMES)
    await declare(vhost.url, name, shapeNamed(name).faultQueue !== undefined);
  exporter = await TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: TOKEN, ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64') },
    {
      rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
      deadLetters: {
        enabled: true,
        url: vhost.url,
        queues: NAMES.flatMap((n) => [
          { queue: `${n}.dlq` },
          ...(shapeNamed(n).faultQueue ? [{ queue: `${n}.work_error` }] : []),
        ]),
      },
      journeys: { settleEvidenceSeconds: 5 },
    },
  );
  scraping = scrape(exporter);
});

after(async () => {
  clearInterval(scraping);
  await exporter.close();
  await vhost.drop();
});

/** Waits for a reading of each queue taken after `sinceMs`: the window of what follows opens. */
async function readingsSince(storeUrl: string, queues: string[], sinceMs: number) {
  const db = new pg.Client({ connectionString: storeUrl });
  await db.connect();
  try {
    await waitFor(
      `readings of ${queues.join(', ')}`,
      async () => {
        const r = await db.query<{ n: number }>(
          `SELECT count(DISTINCT queue)::int AS n FROM queue_readings
            WHERE queue = ANY($1) AND at > to_timestamp($2 / 1000.0)`,
          [queues, sinceMs],
        );
        return r.rows[0]!.n === queues.length;
      },
      { timeoutMs: 30_000 },
    );
  } finally {
    await db.end();
  }
}

/** acktrail_messages_rejected_total{fate="dead_lettered"} of a queue (absent: 0). */
async function deadLettered(e: TestExporter, queue: string): Promise<number> {
  const text = await (await fetch(`${e.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('acktrail_messages_rejected_total{') &&
        l.includes(`queue="${queue}"`) &&
        l.includes('fate="dead_lettered"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** A shape's service on its two queues, and what it publishes and how support finds it. */
function flows(e: TestExporter, svc: SdkService, name: ShapeName) {
  const idOf = (m: Published) => (recordsId(name) ? m.id : m.traceId);
  const routes = {
    work: [name, 'order.created'],
    plain: [`${name}.p`, 'plain'],
  } as const;
  const send = (to: keyof typeof routes, settle: Instruction, hold = false) =>
    svc.publish(routes[to][0], routes[to][1], `${name}.${to}`, settle, hold);
  const journey = (m: Published, what: string, check: (j: Journey) => boolean) =>
    e.journey<Journey>(TOKEN, idOf(m), `${name}: ${what}`, check, EVIDENCE_MS);
  return { send, journey };
}

describe(
  'each SDK shape, a consumer that stays attached, through RabbitMQ',
  { concurrency: true },
  () => {
    for (const name of NAMES)
      test(`${name}: acked, dead-lettered, requeued and a queue without a dead-letter exchange all read true`, async () => {
        const svc = new SdkService(name, vhost.url, `${exporter.url}/v1/traces`);
        await svc.start([`${name}.work`, `${name}.plain`]);
        const { send, journey } = flows(exporter, svc, name);
        try {
          // A first delivery on each queue makes acktrail keep its counters (where spans are silent).
          for (const to of ['work', 'plain'] as const) {
            const first = await send(to, 'ack');
            await journey(first, `the first on ${to}`, (j) => j.deliveries === 1);
          }
          if (SILENT.includes(name))
            await readingsSince(exporter.storeUrl, [`${name}.work`, `${name}.plain`], Date.now());

          const acked = await journey(await send('work', 'ack'), 'acked', (j) =>
            j.kinds.includes('delivered_once'),
          );
          assert.match(acked.verdict, /^processed once at /);
          if (SILENT.includes(name)) {
            assert.ok(acked.kinds.includes('settle_inferred'), acked.kinds.join());
            assert.match(acked.verdict, /records no ack$/);
          }

          const rejects = () => deadLettered(exporter, `${name}.work`);
          const before = await rejects();
          const dead = await journey(await send('work', 'reject'), 'dead-lettered', (j) =>
            j.kinds.includes('dead_lettered'),
          );
          assert.doesNotMatch(dead.verdict, /processed once/);
          assert.equal(dead.parked.length, 1, `${name}: its parked copy is linked`);
          // Counted once, whether its span recorded the reject or parking's x-death showed it.
          if (name !== 'masstransit')
            await waitFor(
              `${name}: the reject counted`,
              async () => (await rejects()) === before + 1,
            );

          const requeued = await journey(
            await send('work', 'requeue'),
            'requeued, then acked',
            (j) => j.deliveries === 2 && /processed once/.test(j.verdict),
          );
          assert.ok(!requeued.kinds.includes('settle_not_recorded'), requeued.verdict);

          // No dead-letter exchange: the counters decide an ack; a reject is never "processed".
          const plain = await journey(await send('plain', 'ack'), 'acked (no DLX)', (j) =>
            j.kinds.includes('delivered_once'),
          );
          assert.match(plain.verdict, /^processed once at /);
          const gone = await journey(
            await send('plain', 'reject'),
            'rejected (no DLX)',
            (j) => !j.kinds.includes('in_flight') && !/not decided yet/.test(j.verdict),
          );
          assert.doesNotMatch(gone.verdict, /processed once/);
          if (SILENT.includes(name))
            assert.match(gone.verdict, /acked or discarded: the broker cannot tell them apart/);
        } finally {
          await svc.stop();
        }
      });
  },
);

test('a redelivery whose spans arrive late overturns the inference at the next read', async () => {
  const svc = new SdkService('python-pika', vhost.url, `${exporter.url}/v1/traces`);
  await svc.start(['python-pika.work']);
  const { send, journey } = flows(exporter, svc, 'python-pika');
  try {
    // Nacked with requeue, then acked: the redelivery's spans are held back.
    const m = await send('work', 'requeue', true);
    const early = await journey(m, 'one delivery decided', (j) => j.inferred.length === 1);
    assert.equal(early.deliveries, 1);
    assert.deepEqual(
      early.inferred.map((i) => [i.fate, i.evidence]),
      [['acked', 'no_dead_letter']],
      'all acktrail could see then',
    );
    await svc.release();
    const later = await journey(m, 'the redelivery counted', (j) => j.deliveries === 2);
    assert.deepEqual(
      later.inferred.map((i) => i.fate),
      ['came_back', 'acked'],
    );
  } finally {
    await svc.stop();
  }
});

test('RabbitMQ 4.0 without management statistics: the counters of /metrics/detailed decide', async () => {
  const name = 'python-aio-pika';
  const v = `acktrail_settles4_${randomBytes(4).toString('hex')}`;
  const auth = `Basic ${Buffer.from('guest:guest').toString('base64')}`;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(new URL(path, RABBITMQ4.management.replace('guest:guest@', '')), {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  await api('PUT', `/api/vhosts/${v}`, {});
  await api('PUT', `/api/permissions/${v}/guest`, { configure: '.*', write: '.*', read: '.*' });
  const url = `${RABBITMQ4.amqp}/${v}`;
  await declare(url, name, false);
  const four = await TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: TOKEN, RABBITMQ_MANAGEMENT_URL: RABBITMQ4.management },
    {
      rabbitmq: { vhosts: [v], prometheusUrl: RABBITMQ4.prometheus, statsIntervalSeconds: 1 },
      journeys: { settleEvidenceSeconds: 5 },
    },
  );
  const timer = scrape(four);
  const svc = new SdkService(name, url, `${four.url}/v1/traces`);
  try {
    await svc.start([`${name}.plain`]);
    const { send, journey } = flows(four, svc, name);
    const first = await send('plain', 'ack');
    await journey(first, 'the first', (j) => j.deliveries === 1);
    await readingsSince(four.storeUrl, [`${name}.plain`], Date.now());
    const acked = await journey(await send('plain', 'ack'), 'acked', (j) =>
      j.kinds.includes('delivered_once'),
    );
    assert.deepEqual(
      acked.inferred.map((i) => [i.fate, i.evidence]),
      [['acked', 'counters']],
    );
    const gone = await journey(await send('plain', 'reject'), 'rejected', (j) =>
      /acked or discarded/.test(j.verdict),
    );
    assert.doesNotMatch(gone.verdict, /processed once/);
  } finally {
    await svc.stop();
    clearInterval(timer);
    await four.close();
    await api('DELETE', `/api/vhosts/${v}`);
  }
});
