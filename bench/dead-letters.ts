// Dead-letter parking, side by side in one run. The same dead letters (made by the broker: a work
// queue whose messages expire at once into its dead-letter exchange, so each carries x-death; a
// 300-byte JSON body with an e-mail address) are loaded into a queue, then drained by:
//   raw      amqplib alone: consume with the same prefetch, ack each (the ceiling of a consumer)
//   parking  acktrail's parking: consume, seal (AES-256-GCM), commit to the store, then ack
// Messages per second: raw from the consumer's start until the last ack; parking from the first
// stored message until the last is stored (its start, migration and connect left out). Target
// (issue 26): parking at least 0.6 of raw. With BENCH_BASELINE naming another checkout (its
// node_modules linked), a third case parks with that checkout's exporter, in this process too.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import amqp from 'amqplib';
import pg from 'pg';
import { type TestVhost, createTestVhost, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { fmt, interleaved, machineCpuMs, median, ownCpuMs } from './lib.js';
import { target } from './figures.js';

const MESSAGES = Number(process.env.BENCH_DEAD_LETTERS ?? 5000);
/** deadLetters.prefetch's default, for both. */
const PREFETCH = Number(process.env.BENCH_PREFETCH ?? 100);
const log = (line: string) => process.stderr.write(`${line}\n`);
/** Another checkout whose exporter parks beside this one's (BENCH_BASELINE). */
const BASELINE = process.env.BENCH_BASELINE;
type Case = 'raw' | 'parking' | 'before';
/** The machine's CPU time per message of each case, by round (µs). */
const cpuPerMessage: Record<Case, number[]> = { raw: [], parking: [], before: [] };
/** The part of it this process spent (the consumer; for parking, the exporter in it), µs. */
const nodeCpuPerMessage: Record<Case, number[]> = { raw: [], parking: [], before: [] };

async function load(vhost: TestVhost, queue: string): Promise<void> {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange(`${queue}.dlx`, 'fanout', { durable: true });
  await ch.assertQueue(queue, { durable: true });
  await ch.bindQueue(queue, `${queue}.dlx`, '');
  await ch.assertQueue(`${queue}.work`, {
    durable: true,
    arguments: { 'x-message-ttl': 0, 'x-dead-letter-exchange': `${queue}.dlx` },
  });
  for (let i = 0; i < MESSAGES; i++) {
    const body = JSON.stringify({
      event_id: `${queue}-${i}`,
      order_id: i,
      email: `customer${i}@example.com`,
      pad: 'x'.repeat(200),
    });
    ch.sendToQueue(`${queue}.work`, Buffer.from(body), {
      messageId: `${queue}-${i}`,
      persistent: true,
      headers: { 'x-acktrail-dead-letter-reason': `provider 422: invalid address (${i})` },
    });
  }
  await ch.waitForConfirms();
  await waitFor(
    `${MESSAGES} dead letters in ${queue}`,
    async () => {
      const q = await ch.checkQueue(queue);
      return q.messageCount === MESSAGES;
    },
    { timeoutMs: 120_000 },
  );
  await conn.close();
}

async function raw(vhost: TestVhost, queue: string): Promise<number> {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.prefetch(PREFETCH);
  let acked = 0;
  const t0 = performance.now();
  const cpu0 = machineCpuMs();
  const own0 = ownCpuMs();
  const done = new Promise<void>((resolve) => {
    void ch.consume(queue, (msg) => {
      if (!msg) return;
      ch.ack(msg);
      if (++acked === MESSAGES) resolve();
    });
  });
  await done;
  const seconds = (performance.now() - t0) / 1000;
  cpuPerMessage.raw.push(((machineCpuMs() - cpu0) * 1000) / MESSAGES);
  nodeCpuPerMessage.raw.push(((ownCpuMs() - own0) * 1000) / MESSAGES);
  await conn.close();
  return MESSAGES / seconds;
}

async function parking(
  vhost: TestVhost,
  queue: string,
  side: 'parking' | 'before',
  Exporter: typeof TestExporter,
): Promise<number> {
  const store = await createTestDatabase('acktrail_bench', false);
  const db = new pg.Client({ connectionString: store.url });
  await db.connect();
  const exporter = await Exporter.start(
    {
      ACKTRAIL_DATABASE_URL: store.url,
      ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64'),
    },
    {
      rabbitmq: { enabled: false },
      deadLetters: { enabled: true, url: vhost.url, queues: [{ queue }], prefetch: PREFETCH },
    },
  );
  const count = async () =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM dead_letters')).rows[0]!.n;
  try {
    // From the first parked message (the exporter's start, migration and connect left out).
    const first = await waitFor(
      'the first dead letter parked',
      async () => {
        const n = await count();
        return n > 0 ? { n, at: performance.now(), cpu: machineCpuMs(), own: ownCpuMs() } : null;
      },
      { timeoutMs: 60_000, intervalMs: 5 },
    );
    await waitFor('every dead letter parked', async () => (await count()) === MESSAGES, {
      timeoutMs: 300_000,
      intervalMs: 20,
    });
    cpuPerMessage[side].push(((machineCpuMs() - first.cpu) * 1000) / (MESSAGES - first.n));
    nodeCpuPerMessage[side].push(((ownCpuMs() - first.own) * 1000) / (MESSAGES - first.n));
    return (MESSAGES - first.n) / ((performance.now() - first.at) / 1000);
  } finally {
    await exporter.close();
    await db.end();
    await store.drop();
  }
}

export async function runDeadLettersBench(rounds: number): Promise<void> {
  log(`\n== dead letters: ${fmt(MESSAGES)} broker-made dead letters, prefetch ${PREFETCH} ==`);
  const vhost = await createTestVhost('acktrail_bench');
  let n = 0;
  const cases: Record<string, () => Promise<number>> = {
    raw: async () => {
      const q = `raw${++n}`;
      await load(vhost, q);
      return raw(vhost, q);
    },
    parking: async () => {
      const q = `park${++n}`;
      await load(vhost, q);
      return parking(vhost, q, 'parking', TestExporter);
    },
  };
  if (BASELINE) {
    // The harness moved out of src/ (exporter/testing/); a baseline from before has it there.
    const harness =
      [`${BASELINE}/exporter/testing/exporter.ts`].find(existsSync) ??
      `${BASELINE}/exporter/src/testing/exporter.ts`;
    const module = (await import(pathToFileURL(harness).href)) as {
      TestExporter: typeof TestExporter;
    };
    cases.before = async () => {
      const q = `before${++n}`;
      await load(vhost, q);
      return parking(vhost, q, 'before', module.TestExporter);
    };
  }
  try {
    const result = await interleaved(rounds, cases);
    const r = median(result.raw!);
    const p = median(result.parking!);
    if (result.before) {
      const b = median(result.before);
      console.log(
        `parking, ${BASELINE}: ${fmt(b)} msg/s, ${fmt(b / r, 2)} of raw; this checkout / it ${fmt(p / b, 2)}; CPU per message ${fmt(median(cpuPerMessage.before))} µs, Node ${fmt(median(nodeCpuPerMessage.before))} µs`,
      );
    }
    console.log(
      `dead letters: raw consume+ack ${fmt(r)} msg/s, parking ${fmt(p)} msg/s (median of ${rounds}); parking/raw ${fmt(p / r, 2)} (target >= 0.6)`,
    );
    target('dead-letter parking / raw consume+ack', p / r, { atLeast: 0.6 });
    const cr = median(cpuPerMessage.raw);
    const cp = median(cpuPerMessage.parking);
    console.log(
      `machine CPU per message (broker, PostgreSQL, Node together): raw ${fmt(cr)} µs, parking ${fmt(cp)} µs; raw/parking ${fmt(cr / cp, 2)}, the ratio's bound when every core is busy`,
    );
    const nr = median(nodeCpuPerMessage.raw);
    const np = median(nodeCpuPerMessage.parking);
    console.log(
      `of which Node (the consumer; the exporter): raw ${fmt(nr)} µs, parking ${fmt(np)} µs; the other processes (broker, PostgreSQL): raw ${fmt(cr - nr)} µs, parking ${fmt(cp - np)} µs`,
    );
  } finally {
    await vhost.drop();
  }
}
