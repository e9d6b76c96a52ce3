// Bodies sent a byte at a time (exporter/src/receiver/pieces.ts): HTTP/1.1 chunked with one-byte
// chunks, HTTP/1.1 with a length and a byte per segment, and OTLP/gRPC as one-byte DATA frames,
// on the exporter's own loop without a token and on the ingest thread with one (the attacker
// holding it). Before, each piece was held as a Buffer of its own and charged its one byte: 4 MB
// of chunks held 1.4 GB. Now the exporter, its own process, stays within its memory budget and a
// quarter, /healthz answers throughout, a well-behaved sender's exports are accepted within 10 s
// of the attack's end, and dead-letter parking goes on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';
import { freePort, waitFor, type RoleProcess } from '@acktrail/testing';
import { Scrape, startExporterProcess } from '@acktrail/exporter/testing';
import {
  DLQ,
  deadLetterBench,
  type DeadLetterBench,
} from '@acktrail/exporter/testing/dead-letter-broker';
import { exportSpans, journeySpans } from '@acktrail/exporter/testing/otlp';
import { dripChunked, dripGrpc, dripWithLength } from '@acktrail/exporter/testing/tiny-pieces';
import { MAX_PIECES } from '@acktrail/exporter/testing/spans';

const MB = 1024 * 1024;
/** memory.budgetBytes of both exporters: the default. */
const BUDGET = 512 * MB;
const TOKEN = 'tiny-pieces-ingest-token-0123';
/** Connections at once, and what each sends in all (before, one request of it held ~350 MB). */
const CONNECTIONS = 4;
const CHUNKS_EACH = 1_000_000;
const FRAMES_EACH = 1_500_000;

let bench: DeadLetterBench;

before(async () => {
  bench = await deadLetterBench();
});
after(() => bench.drop());

/** Peak resident memory of a process so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

async function scrape(url: string): Promise<Scrape> {
  return new Scrape(await (await fetch(`${url}/metrics`)).text());
}

/** Bodies and messages the exporter could not read so far (each counted as one rejected span). */
const rejected = async (url: string) =>
  (await scrape(url)).value('acktrail_spans_received_total', { outcome: 'rejected' }) ?? 0;

/** Sends `each` pieces over `drip` on every connection, again after every refusal. */
async function attack(
  drip: (left: number) => Promise<{ sent: number; answered: boolean }>,
  each: number,
): Promise<{ calls: number; answeredEarly: number }> {
  const tally = { calls: 0, answeredEarly: 0 };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let left = each; left > 0;) {
        const { sent, answered } = await drip(left);
        tally.calls++;
        if (answered && sent < left) tally.answeredEarly++;
        left -= Math.max(sent, 1);
      }
    }),
  );
  return tally;
}

/** /healthz asked every 200 ms while `during` runs: every answer, and the failures. */
async function probing<T>(url: string, during: Promise<T>) {
  const answers: (number | string)[] = [];
  const state = { done: false };
  const probes = (async () => {
    while (!state.done) {
      answers.push(
        await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
          (r) => r.status,
          (err: unknown) => String(err),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const result = await during.finally(() => (state.done = true));
  await probes;
  return { result, answers };
}

let deadLetters = 0;

/** After the attack: a sender's exports accepted within 10 s, and a dead letter parked. */
async function wellBehavedAfter(url: string, ingestUrl: string, token: string | undefined) {
  const id = `dl-after-tiny-${++deadLetters}`;
  for (let i = 0; i < 5; i++) {
    const eventId = `ev-after-tiny-${deadLetters}-${i}`;
    let last = '';
    await waitFor(
      `an export accepted (${eventId})`,
      async () => {
        const r = await exportSpans(ingestUrl, journeySpans(eventId), 'protobuf', token);
        const over = (await scrape(url)).value('acktrail_memory_over_budget');
        last = `${r.error?.message ?? 'accepted'}; acktrail_memory_over_budget ${over}`;
        return r.code === 0;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; the last export: ${last}`);
    });
  }
  const s = await scrape(url);
  assert.equal(s.value('acktrail_memory_over_budget'), 0);
  const conn = await amqp.connect(bench.vhost.url);
  try {
    const ch = await conn.createConfirmChannel();
    ch.publish('jobs', 'job', Buffer.from(id), { messageId: id });
    await ch.waitForConfirms();
  } finally {
    await conn.close();
  }
  await waitFor(`${id} parked`, async () => {
    const r = await bench.db.query(`SELECT 1 FROM dead_letters WHERE event_id = $1`, [id]);
    return r.rowCount === 1;
  });
}

const parking = () => ({
  rabbitmq: { enabled: false },
  deadLetters: { enabled: true, url: bench.vhost.url, queues: [{ queue: DLQ }] },
});

async function start(env: Record<string, string>) {
  return startExporterProcess(
    {
      ACKTRAIL_DATABASE_URL: bench.store.url,
      ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64'),
      ...env,
    },
    parking(),
  );
}

function assertWithinBudget(proc: RoleProcess) {
  const peak = peakRss(proc.pid);
  assert.ok(
    peak <= BUDGET * 1.25,
    `peak RSS ${(peak / MB).toFixed(0)} MB, over the budget (${BUDGET / MB} MB) and a quarter`,
  );
}

for (const placement of ['loop', 'thread'] as const) {
  describe(`on the ${placement === 'loop' ? "exporter's loop, no token" : 'ingest thread, with the token'}`, () => {
    let exporter: Awaited<ReturnType<typeof start>>;
    let grpcPort: number;
    const token = placement === 'thread' ? TOKEN : undefined;

    before(async () => {
      grpcPort = await freePort();
      exporter = await start({
        ACKTRAIL_OTLP_GRPC_PORT: String(grpcPort),
        ...(placement === 'thread'
          ? { ACKTRAIL_INGEST_PORT: String(await freePort()), ACKTRAIL_INGEST_TOKEN: TOKEN }
          : {}),
      });
    });
    after(() => exporter.proc.stop());

    const port = () => Number(new URL(exporter.ingestUrl).port);

    test('one-byte chunks: every request stopped at its piece limit, memory within the budget', async () => {
      const before = await rejected(exporter.url);
      const { result, answers } = await probing(
        exporter.url,
        attack((left) => dripChunked(port(), left, token ?? null), CHUNKS_EACH),
      );
      assert.ok(result.answeredEarly > 0, 'requests answered before their body ended');
      const refused = (await rejected(exporter.url)) - before;
      assert.ok(
        refused >= result.answeredEarly,
        `each refused at its ${MAX_PIECES} pieces counted (${refused} rejected, ${result.answeredEarly} answered early)`,
      );
      assert.deepEqual(new Set(answers), new Set([200]), '/healthz answered throughout');
      assertWithinBudget(exporter.proc);
      await wellBehavedAfter(exporter.url, exporter.ingestUrl, token);
    });

    test('a byte per segment with a declared length: memory within the budget', async () => {
      const { answers } = await probing(
        exporter.url,
        attack((left) => dripWithLength(port(), Math.min(left, 50_000), token ?? null), 50_000),
      );
      assert.deepEqual(new Set(answers), new Set([200]));
      assertWithinBudget(exporter.proc);
      await wellBehavedAfter(exporter.url, exporter.ingestUrl, token);
    });

    test('one-byte DATA frames: every call refused at its frame limit, memory within the budget', async () => {
      const before = await rejected(exporter.url);
      const { result, answers } = await probing(
        exporter.url,
        attack((left) => dripGrpc(grpcPort, left, token ?? null, 8 * MB), FRAMES_EACH),
      );
      assert.ok(result.answeredEarly > 0, 'calls answered before their message ended');
      const refused = (await rejected(exporter.url)) - before;
      assert.ok(
        refused >= result.answeredEarly,
        `each refused at its ${MAX_PIECES} frames counted (${refused} rejected, ${result.answeredEarly} answered early)`,
      );
      assert.deepEqual(new Set(answers), new Set([200]), '/healthz answered throughout');
      assertWithinBudget(exporter.proc);
      await wellBehavedAfter(exporter.url, exporter.ingestUrl, token);
    });
  });
}
