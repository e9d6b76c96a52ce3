// /v1/traces against an attacker and a flood, on the exporter as its own process (its memory is
// measured): strings cut before they are scanned, a token when one is set, span and byte limits
// checked before the body is read, and under 32 concurrent 8 MB bodies the exporter keeps
// answering, stays under its memory bound and loses nothing it answered 200 for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { type RoleProcess, type TestDatabase, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { startExporterProcess } from '@acktrail/exporter/testing';
import { FLOOD_SPANS, floodTraceId, runFlood } from '@acktrail/exporter/testing/flood';

const TOKEN = 'ingest-token-0123456789abcdef';
const MB = 1024 * 1024;
/** What each held upload of 8 MiB does not send: 4 of them leave 256 KiB of the 32 MiB budget. */
const HELD_BACK = 64 * 1024;
/**
 * The bound stated in docs/security.md for the default limits (32 MiB in flight, 8 MiB bodies).
 * It was 512 MB; reading and dropping every refused body (so that its sender reads the 503) and a
 * decoding worker's heap put single runs on Node 24 between 385 and 522 MB (docs/benchmarks-history.md).
 */
const RSS_BOUND_MB = 640;
/** journeys.bodyIdleTimeoutSeconds of this file's exporter. */
const IDLE_SECONDS = 2;
/** journeys.bodyTimeoutSeconds of this file's exporter. */
const BODY_SECONDS = 8;

let store: TestDatabase;
let exporter: { proc: RoleProcess; url: string };
let db: pg.Pool;

before(async () => {
  store = await createTestDatabase();
  db = new pg.Pool({ connectionString: store.url, max: 2 });
  exporter = await startExporterProcess(
    { ACKTRAIL_DATABASE_URL: store.url, ACKTRAIL_INGEST_TOKEN: TOKEN },
    {
      rabbitmq: { enabled: false },
      journeys: {
        maxSpansPerRequest: 2000,
        bodyIdleTimeoutSeconds: IDLE_SECONDS,
        bodyTimeoutSeconds: BODY_SECONDS,
      },
    },
  );
});
after(async () => {
  await exporter.proc.stop();
  await db.end();
  await store.drop();
});

const nowNs = () => BigInt(Date.now()) * 1_000_000n;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

interface SpanOptions {
  traceId: string;
  spanId: string;
  eventId: string;
  name?: string;
  attributes?: [string, string][];
}

function span(o: SpanOptions) {
  const t = nowNs();
  return {
    traceId: o.traceId,
    spanId: o.spanId,
    name: o.name ?? 'deliver',
    kind: 5,
    startTimeUnixNano: String(t),
    endTimeUnixNano: String(t + 1_000_000n),
    attributes: [
      ['acktrail.event_id', o.eventId],
      ['acktrail.stage', 'deliver'],
      ...(o.attributes ?? []),
    ].map(([key, value]) => ({ key, value: { stringValue: value } })),
  };
}

const body = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

function post(payload: string | Buffer, token: string | null = TOKEN) {
  return fetch(`${exporter.url}/v1/traces`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: payload,
  });
}

async function stored(where: string, params: unknown[]): Promise<number> {
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journey_steps WHERE ${where}`,
    params,
  );
  return r.rows[0]!.n;
}

/** Peak resident memory of the exporter process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

describe('the ingest token', () => {
  test('without it, or with a wrong one: 401, and nothing is stored', async () => {
    const payload = body([
      span({ traceId: hex(1, 32), spanId: hex(1, 16), eventId: 'ev-no-token' }),
    ]);
    for (const token of [null, 'wrong-token-0123456789']) {
      const res = await post(payload, token);
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /Bearer/);
      assert.match(await res.text(), /bearer token/);
    }
    assert.equal(await stored('event_id = $1', ['ev-no-token']), 0);
    const res = await post(payload);
    assert.equal(res.status, 200);
    assert.equal(await stored('event_id = $1', ['ev-no-token']), 1);
  });
});

describe('strings of a megabyte', () => {
  test(
    'the span that froze the exporter is stored cut to 200 characters, the exporter answering meanwhile',
    {
      timeout: 30_000, // the old e-mail mask took minutes on one such string
    },
    async () => {
      const huge = `${'a'.repeat(MB)}@`;
      const payload = body([
        span({
          traceId: hex(2, 32),
          spanId: hex(2, 16),
          eventId: 'ev-huge',
          name: huge,
          attributes: [
            ['acktrail.queue', huge],
            ['acktrail.dead_letter.reason', `${'b@'.repeat(MB / 2)}c.d`],
            ['messaging.destination.name', `x\u0000${'y'.repeat(MB)}`],
          ],
        }),
      ]);
      const sending = post(payload);
      // The event loop is free while the request is worked on.
      const health = await fetch(`${exporter.url}/healthz`);
      assert.equal(health.status, 200);
      assert.equal((await sending).status, 200);
      const row = await db.query<{ name: string; queue: string; reason: string; dest: string }>(
        `SELECT name, attrs->>'acktrail.queue' AS queue, attrs->>'acktrail.dead_letter.reason' AS reason,
              attrs->>'messaging.destination.name' AS dest
         FROM journey_steps WHERE event_id = 'ev-huge'`,
      );
      const r = row.rows[0]!;
      assert.equal(r.name, `${'a'.repeat(200)}…`);
      assert.equal(r.queue, `${'a'.repeat(200)}…`);
      assert.equal(r.reason.length, 201);
      assert.ok(!r.dest.includes('\u0000'));
    },
  );
});

describe('limits checked before the work', () => {
  test('more spans than maxSpansPerRequest: 413 naming the limit, nothing stored', async () => {
    const spans = Array.from({ length: 2001 }, (_, i) =>
      span({ traceId: hex(3, 32), spanId: hex(i + 1, 16), eventId: 'ev-many' }),
    );
    const res = await post(body(spans));
    assert.equal(res.status, 413);
    assert.match(await res.text(), /2001 spans in one request; at most 2000/);
    assert.equal(await stored('event_id = $1', ['ev-many']), 0);
  });

  test('idle uploads declaring 8 MiB each hold nothing, and are dropped after the idle timeout', async () => {
    const held = [0, 1, 2, 3, 4, 5].map(() => openUpload(8 * MB));
    await Promise.all(held.map((u) => u.sent));
    // Each upload's first byte arrived (charged as it came: six bytes, not 48 MiB).
    await waitFor('the six uploads being read', async () => {
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      return Number(/^acktrail_ingest_inflight_bytes (\d+)/m.exec(text)?.[1]) >= 6;
    });
    // A real SDK's body is taken at once: the declared 48 MiB are not charged.
    const res = await post(
      body([span({ traceId: hex(4, 32), spanId: hex(1, 16), eventId: 'ev-beside-idle' })]),
    );
    assert.equal(res.status, 200);
    assert.equal(await stored('event_id = $1', ['ev-beside-idle']), 1);
    await waitFor('the idle uploads dropped', () => held.every((u) => u.closed()), {
      timeoutMs: (IDLE_SECONDS + 10) * 1000,
    });
    const metrics = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.match(metrics, /acktrail_ingest_refused_total\{reason="idle_body"\} [6-9]/);
    assert.match(metrics, /^acktrail_ingest_inflight_bytes 0$/m);
  });

  test('a slow drip (all of 8 MiB but a few bytes, then one byte a second, under the idle bound) is dropped at bodyTimeoutSeconds, its budget freed', async () => {
    const drips = [0, 1, 2].map(() => openUpload(8 * MB, 8 * MB - 64));
    await Promise.all(drips.map((d) => d.sent));
    await waitFor('24 MiB held', async () => {
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      return Number(/^acktrail_ingest_inflight_bytes (\d+)/m.exec(text)?.[1]) >= 24 * MB - 192;
    });
    const timers = drips.map((d) => setInterval(d.drip, 1000));
    try {
      await waitFor('the drips dropped', () => drips.every((d) => d.closed()), {
        timeoutMs: (BODY_SECONDS + 20) * 1000,
      });
    } finally {
      for (const t of timers) clearInterval(t);
    }
    const metrics = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.match(metrics, /acktrail_ingest_refused_total\{reason="slow_body"\} 3$/m);
    assert.match(metrics, /^acktrail_ingest_inflight_bytes 0$/m);
    assert.ok(
      drips.every((d) => d.dripped() >= IDLE_SECONDS + 1),
      'each kept sending past the idle bound: the idle watch alone would not have dropped it',
    );
  });

  test('past the in-flight budget: 503 with Retry-After, read by a client that sends its body', async () => {
    // Four uploads that send all but 64 KiB of 8 MiB hold all of the 32 MiB budget but 256 KiB,
    // less what their pieces cost beyond their bytes (receiver/pieces.ts).
    const held = [0, 1, 2, 3].map(() => openUpload(8 * MB, 8 * MB - HELD_BACK));
    await waitFor('32 MiB held but 256 KiB', async () => {
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      const inUse = Number(/^acktrail_ingest_inflight_bytes (\d+)/m.exec(text)?.[1]);
      return inUse >= 4 * (8 * MB - HELD_BACK);
    });
    // A client that sends its whole body of 1 MiB (as SDKs do) reads the 503, not a reset.
    const refused = await post(
      body([span({ traceId: hex(5, 32), spanId: hex(1, 16), eventId: 'ev-refused' })]) +
        ' '.repeat(MB),
    );
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '2');
    assert.match(await refused.text(), /in-flight budget/);
    for (const u of held) u.abort();
    const metrics = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.match(metrics, /acktrail_ingest_refused_total\{reason="over_budget"\} [1-9]/);
    // Aborted uploads give their share back.
    await waitFor('the budget released', async () => {
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      return /^acktrail_ingest_inflight_bytes 0$/m.test(text);
    });
  });

  test("OTel JS's own exporter, refused twice while the budget is held, stores its span by a later retry", async () => {
    // The real SDK (exporter-trace-otlp-proto 0.301.0) waits out Retry-After only within what is
    // left of its 10 s export timeout. The budget stays held through two refusals: at a Retry-After
    // of 5 s the SDK gave up after them (the relay's lost publish span in CI, 2026-12-05).
    // All but 64 KiB of 8 MiB each, a byte a second under the idle bound: 32 MiB less 256 KiB
    // held, and less what the pieces cost beyond their bytes; the SDK's span carries 512 KiB.
    const held = [0, 1, 2, 3].map(() => openUpload(8 * MB, 8 * MB - HELD_BACK));
    await waitFor('32 MiB held but 256 KiB', async () => {
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      const inUse = Number(/^acktrail_ingest_inflight_bytes (\d+)/m.exec(text)?.[1]);
      return inUse >= 4 * (8 * MB - HELD_BACK);
    });
    const refusals = async () =>
      Number(
        /^acktrail_ingest_refused_total\{reason="over_budget"\} (\d+)/m.exec(
          await (await fetch(`${exporter.url}/metrics`)).text(),
        )?.[1],
      );
    const before = await refusals();
    const timers = held.map((u) => setInterval(u.drip, 1000));
    const provider = new TracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor({
          exporter: new OTLPTraceExporter({
            url: `${exporter.url}/v1/traces`,
            headers: { authorization: `Bearer ${TOKEN}` },
          }),
        }),
      ],
    });
    try {
      provider
        .getTracer('hostile-ingest')
        .startSpan('deliver', {
          attributes: {
            'acktrail.event_id': 'ev-sdk-retried',
            'acktrail.stage': 'deliver',
            'x-pad': 'p'.repeat(MB / 2),
          },
        })
        .end();
      await waitFor("the SDK's export refused twice", async () => (await refusals()) >= before + 2);
    } finally {
      for (const t of timers) clearInterval(t);
      for (const u of held) u.abort();
    }
    await waitFor(
      'the span stored by a retry',
      async () => (await stored('event_id = $1', ['ev-sdk-retried'])) === 1,
    );
    await provider.shutdown();
  });
});

/** A POST to /v1/traces that declares `size` bytes; nothing of the body is sent yet. */
function upload(size: number) {
  return request(`${exporter.url}/v1/traces`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(size),
      authorization: `Bearer ${TOKEN}`,
    },
  });
}

/**
 * An upload that declares `size` bytes and sends `send` of them (the first is `{`), then waits:
 * `sent` resolves once they are written, `closed` when the exporter drops the connection.
 */
function openUpload(size: number, send = 1) {
  const req = upload(size);
  req.on('error', () => undefined);
  let closed = false;
  req.once('close', () => {
    closed = true;
  });
  const sent = new Promise<void>((resolve) => {
    req.write(Buffer.alloc(send, '{'), () => {
      resolve();
    });
  });
  let dripped = 0;
  /** One more byte of the body, while the connection lasts. */
  const drip = () => {
    if (closed) return;
    dripped++;
    req.write(' ');
  };
  return { abort: () => req.destroy(), sent, closed: () => closed, drip, dripped: () => dripped };
}

describe('a flood', () => {
  // An exporter of its own, with a body idle bound of 60 s: this file's first one drops a body
  // silent for 2 s, and a flood client starved that long by this 2-core machine is the idle bound
  // doing its work, not a refused body answered with a reset (in CI runs on a loaded machine, 5
  // of about 60 requests ended without an answer; the resets traced later were Node's keep-alive
  // closes, fixed in listen.ts and receiver/body.ts). Its peak RSS is the flood's alone.
  let flooded: { proc: RoleProcess; url: string };
  before(async () => {
    flooded = await startExporterProcess(
      { ACKTRAIL_DATABASE_URL: store.url, ACKTRAIL_INGEST_TOKEN: TOKEN },
      {
        rabbitmq: { enabled: false },
        journeys: { maxSpansPerRequest: 2000, bodyIdleTimeoutSeconds: 60, bodyTimeoutSeconds: 120 },
      },
    );
  });
  after(() => flooded.proc.stop());

  test(
    '32 concurrent 8 MB bodies for 30 s: health and metrics answer, memory stays bounded, nothing answered 200 is lost',
    {
      timeout: 240_000,
    },
    async () => {
      // The flood comes from a process of its own: these probes measure the exporter, not it.
      const flooding = runFlood(flooded.url, 30, 32, TOKEN);
      const state = { done: false };
      const over = () => {
        state.done = true;
      };
      flooding.then(over, over);
      const probes = { ok: 0, failed: [] as string[] };
      while (!state.done) {
        for (const path of ['/healthz', '/metrics']) {
          try {
            const res = await fetch(`${flooded.url}${path}`, {
              signal: AbortSignal.timeout(10_000),
            });
            await res.arrayBuffer();
            if (res.status === 200) probes.ok++;
            else probes.failed.push(`${path}: ${res.status}`);
          } catch (err) {
            probes.failed.push(`${path}: ${(err as Error).message}`);
          }
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      const { answers, acked } = await flooding;
      const peak = peakRssMb(flooded.proc.pid);
      const exposition = await (await fetch(`${flooded.url}/metrics`)).text();
      const idleDropped = /^acktrail_ingest_refused_total\{reason="idle_body"\} (\d+)$/m.exec(
        exposition,
      )?.[1];
      const summary = `${JSON.stringify(answers)}, ${idleDropped ?? 0} dropped as idle, peak RSS ${peak.toFixed(0)} MB, ${probes.ok} probes answered`;
      console.log(`flood: ${summary}`);
      assert.deepEqual(probes.failed, [], summary);
      assert.ok(probes.ok >= 20, summary);
      assert.ok(acked.length > 0, `some bodies were taken: ${summary}`);
      assert.ok((answers['503'] ?? 0) > 0, `the budget refused some: ${summary}`);
      // A refused body is read and thrown away: the sender reads its 503, not a reset.
      const total = Object.values(answers).reduce((a, b) => a + b, 0);
      const resets = Object.entries(answers)
        .filter(([k]) => !/^\d+$/.test(k))
        .reduce((n, [, v]) => n + v, 0);
      assert.ok(resets <= total / 100, `at most 1 % without an HTTP answer: ${summary}`);
      assert.ok(peak < RSS_BOUND_MB, summary);

      const counts = await db.query<{ trace_id: string; n: number }>(
        `SELECT trace_id, count(*)::int AS n FROM journey_steps WHERE event_id LIKE 'flood-%' GROUP BY 1`,
      );
      const have = new Map(counts.rows.map((r) => [r.trace_id, r.n]));
      const lost = acked.filter((n) => have.get(floodTraceId(n)) !== FLOOD_SPANS);
      assert.deepEqual(lost, [], `of ${acked.length} bodies answered 200`);
    },
  );
});
