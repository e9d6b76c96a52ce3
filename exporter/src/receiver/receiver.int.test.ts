// POST /v1/traces against a real journey store, fed by the real OTel Node SDK exporters.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { TestExporter } from '../../testing/exporter.js';
import { countSteps, exportSpans, journeySpans, type Protocol } from '../../testing/otlp.js';
import { ExportTraceServiceRequest } from '../journeys/spans/index.js';

let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let store: { url: string };

before(async () => {
  exporter = await TestExporter.withStore({}, { journeys: { maxBodyBytes: 64 * 1024 } });
  store = { url: exporter.storeUrl };
});
after(async () => {
  await exporter.close();
});

for (const protocol of ['protobuf', 'json+gzip', 'protobuf+gzip', 'json'] as Protocol[]) {
  test(`the SDK's ${protocol} exporter stores steps, once however often it retries`, async () => {
    const eventId = `ev-${protocol}`;
    const spans = journeySpans(eventId);
    assert.equal((await exportSpans(exporter.url, spans, protocol)).code, 0);
    // Three spans; the stock amqplib consumer span also stands for its ack (it ends at the settle).
    assert.equal(await countSteps(store.url, 'event_id = $1', [eventId]), 4);
    const stored = (await exporter.scrape()).value('acktrail_journey_steps_stored_total');

    assert.equal((await exportSpans(exporter.url, spans, protocol)).code, 0, 'a retry succeeds');
    assert.equal(await countSteps(store.url, 'event_id = $1', [eventId]), 4, 'and adds nothing');
    assert.equal((await exporter.scrape()).value('acktrail_journey_steps_stored_total'), stored);

    const stages = await countSteps(
      store.url,
      `event_id = $1 AND stage = 'deliver' AND attrs->>'messaging.rabbitmq.destination.routing_key' = 'order.created'
         AND NOT attrs ? 'customer.email'`,
      [eventId],
    );
    assert.equal(stages, 1, 'old names map to the deliver stage; unlisted attributes are dropped');
    const settles = await countSteps(
      store.url,
      `event_id = $1 AND stage = 'settle' AND attrs->>'acktrail.settle.outcome' = 'ack'
         AND attrs->>'acktrail.queue' = 'orders.confirmations'`,
      [eventId],
    );
    assert.equal(settles, 1, "the consumer span's end is its settle, on the queue its name gives");
  });
}

const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function jsonSpan(over: Record<string, unknown>) {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    name: 'deliver',
    kind: 5,
    startTimeUnixNano: String(now),
    endTimeUnixNano: String(now + 1_000_000n),
    attributes: [
      { key: 'acktrail.event_id', value: { stringValue: 'ev-partial' } },
      { key: 'acktrail.stage', value: { stringValue: 'deliver' } },
    ],
    ...over,
  };
}

test('invalid spans are rejected in partialSuccess; the valid ones are stored', async () => {
  const res = await fetch(`${exporter.url}/v1/traces`, {
    method: 'POST',
    ...json({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                jsonSpan({}),
                jsonSpan({ spanId: 'abc' }),
                jsonSpan({ spanId: 'eee19b7ec3c1b175', startTimeUnixNano: '1000' }),
                // NUL and a lone surrogate: stored without them, never failing the batch
                jsonSpan({
                  spanId: 'eee19b7ec3c1b176',
                  name: 'bad\u0000name\ud800',
                  attributes: [
                    { key: 'acktrail.event_id', value: { stringValue: 'ev-partial' } },
                    { key: 'acktrail.stage', value: { stringValue: 'deliver' } },
                    { key: 'acktrail.queue', value: { stringValue: 'q\u0000\udc00' } },
                  ],
                }),
              ],
            },
          ],
        },
      ],
    }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = (await res.json()) as {
    partialSuccess: { rejectedSpans: number; errorMessage: string };
  };
  assert.equal(body.partialSuccess.rejectedSpans, 2);
  assert.match(body.partialSuccess.errorMessage, /spanId must be 8 bytes/);
  assert.match(body.partialSuccess.errorMessage, /retention window/);
  assert.equal(await countSteps(store.url, 'event_id = $1', ['ev-partial']), 2);
  assert.equal(
    await countSteps(store.url, `name = $1 AND attrs->>'acktrail.queue' = $2`, [
      'badname\ufffd',
      'q\ufffd',
    ]),
    1,
  );
});

test('a protobuf request is answered in protobuf', async () => {
  const res = await fetch(`${exporter.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: Buffer.from([0xff, 0xff, 0xff]),
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('content-type'), 'application/x-protobuf');
  assert.ok((await res.arrayBuffer()).byteLength > 0);
});

function validProtobuf(eventId: string): Buffer {
  const now = Date.now();
  return Buffer.from(
    ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: Array.from({ length: 20 }, (_, i) => ({
                  traceId: Buffer.from('5b8efff798038103d269b633813fc60d', 'hex'),
                  spanId: Buffer.from(`aaaaaaaaaaaaaa${String(10 + i)}`, 'hex'),
                  name: 'publish',
                  kind: 4,
                  startTimeUnixNano: nanos(now),
                  endTimeUnixNano: nanos(now + 1),
                  attributes: [
                    { key: 'acktrail.event_id', value: { stringValue: eventId } },
                    { key: 'acktrail.stage', value: { stringValue: 'outbox.publish' } },
                  ],
                })),
              },
            ],
          },
        ],
      }),
    ).finish(),
  );
}

function nanos(ms: number) {
  const n = BigInt(ms) * 1_000_000n;
  return { low: Number(n & 0xffffffffn) | 0, high: Number(n >> 32n) | 0, unsigned: true };
}

test('hostile and broken bodies get 4xx, never 500, and store nothing', async () => {
  const before = await countSteps(store.url);
  const deepJson = '{"resourceSpans":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}';
  // 60k nested start-group tags of an unknown field (3): skipped groups nest without bound
  const nestedGroups = Buffer.alloc(60_000, 0x1b);
  const valid = validProtobuf('ev-hostile');
  const cases: { what: string; type: string; body: Buffer; encoding?: string; status: number[] }[] =
    [
      {
        what: 'garbage protobuf',
        type: 'application/x-protobuf',
        body: Buffer.from('not a protobuf at all'),
        status: [400],
      },
      {
        what: 'truncated protobuf',
        type: 'application/x-protobuf',
        body: valid.subarray(0, valid.length - 7),
        status: [400],
      },
      {
        what: 'nested groups',
        type: 'application/x-protobuf',
        body: nestedGroups,
        status: [400],
      },
      {
        what: 'invalid JSON',
        type: 'application/json',
        body: Buffer.from('{"resourceSpans": ['),
        status: [400],
      },
      {
        what: 'JSON of the wrong shape',
        type: 'application/json',
        body: Buffer.from('{"resourceSpans": {"a": 1}}'),
        status: [400],
      },
      {
        what: 'JSON attributes of the wrong shape',
        type: 'application/json',
        body: Buffer.from(
          JSON.stringify({
            resourceSpans: [{ scopeSpans: [{ spans: [jsonSpan({ attributes: [{ key: 5 }] })] }] }],
          }),
        ),
        status: [400],
      },
      {
        what: 'deeply nested JSON',
        type: 'application/json',
        body: Buffer.from(deepJson),
        status: [400, 413],
      },
      {
        what: 'a bad gzip stream',
        type: 'application/json',
        encoding: 'gzip',
        body: Buffer.from('not gzip'),
        status: [400],
      },
      {
        what: 'a gzip bomb',
        type: 'application/json',
        encoding: 'gzip',
        body: gzipSync(Buffer.alloc(10_000_000, 0x20)),
        status: [413],
      },
      {
        what: 'an oversized body',
        type: 'application/x-protobuf',
        body: Buffer.alloc(200_000, 0),
        status: [413],
      },
      {
        what: 'an unknown encoding',
        type: 'application/json',
        encoding: 'x-unknown',
        body: Buffer.from('{}'),
        status: [415],
      },
      {
        what: 'another content type',
        type: 'text/plain',
        body: Buffer.from('hello'),
        status: [415],
      },
    ];
  for (const c of cases) {
    const res = await fetch(`${exporter.url}/v1/traces`, {
      method: 'POST',
      headers: {
        'content-type': c.type,
        ...(c.encoding ? { 'content-encoding': c.encoding } : {}),
      },
      body: c.body,
    });
    assert.ok(c.status.includes(res.status), `${c.what}: answered ${res.status}`);
    assert.ok((await res.text()).length > 0, `${c.what}: the answer says what is wrong`);
  }
  assert.equal(await countSteps(store.url), before, 'nothing was stored');
  assert.equal((await fetch(`${exporter.url}/healthz`)).status, 200);
});

test('random corruptions of a valid body never answer 500 and never store half a request', async () => {
  const valid = validProtobuf('ev-fuzz');
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 300; i++) {
    const body = Buffer.from(valid);
    for (let k = 0; k <= rand(4); k++) body[rand(body.length)] = rand(256);
    const cut = rand(3) === 0 ? body.subarray(0, rand(body.length)) : body;
    const before = await countSteps(store.url);
    const res = await fetch(`${exporter.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: cut,
    });
    assert.ok(res.status === 200 || res.status === 400, `iteration ${i}: ${res.status}`);
    if (res.status === 400) assert.equal(await countSteps(store.url), before, `iteration ${i}`);
  }
});
