// The journey API over a real store: bearer token, validation, 404, keyset pagination.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TestExporter } from '../../testing/exporter.js';
import { exportSpans, makeSpans } from '../../testing/otlp.js';

const TOKEN = 'api-test-token-0123456789';
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
const get = (path: string, token: string | null = TOKEN) =>
  fetch(`${exporter.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

before(async () => {
  exporter = await TestExporter.withStore({ ACKTRAIL_API_TOKEN: TOKEN });
  // Seven events of aggregate A, one second apart, each published and delivered; the third is
  // redelivered.
  const t0 = Date.now() - 60_000;
  const spans = makeSpans(
    Array.from({ length: 7 }, (_, i) => [
      {
        name: 'publish',
        startMs: t0 + i * 1000,
        attributes: {
          'acktrail.event_id': `a-${i}`,
          'acktrail.stage': 'outbox.publish',
          'acktrail.aggregate_type': 'order',
          'acktrail.aggregate_id': 'A',
        },
      },
      {
        name: 'deliver',
        startMs: t0 + i * 1000 + 10,
        attributes: {
          'acktrail.event_id': `a-${i}`,
          'acktrail.stage': 'deliver',
          'acktrail.delivery.redelivered': i === 2,
          'acktrail.aggregate_id': 'A',
        },
      },
    ]).flat(),
  );
  assert.equal((await exportSpans(exporter.url, spans, 'protobuf')).code, 0);
});
after(async () => {
  await exporter.close();
});

test('no token, a wrong token: 401 that says how to authenticate', async () => {
  for (const token of [null, 'wrong-token-wrong-token']) {
    const res = await get('/api/events/a-1', token);
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="acktrail"');
    assert.match(((await res.json()) as { error: string }).error, /Bearer/);
  }
});

test('bad ids and parameters answer 400 naming the problem; unknown ids 404', async () => {
  const cases: [string, RegExp][] = [
    [`/api/events/${'x'.repeat(129)}`, /event_id must be/],
    ['/api/events/a%0Ab', /event_id must be/],
    ['/api/events?anomaly=weird', /anomaly/],
    ['/api/events?limit=0', /limit/],
    ['/api/events?since=yesterday', /since: must be an ISO 8601 time or a duration/],
    ['/api/events?cursor=bm9wZQ', /cursor: is not a cursor/],
    ['/api/events?colour=red', /unknown parameter\(s\): colour/],
  ];
  for (const [path, message] of cases) {
    const res = await get(path);
    assert.equal(res.status, 400, path);
    assert.match(((await res.json()) as { error: string }).error, message, path);
  }
  const missing = await get('/api/events/no-such-event');
  assert.equal(missing.status, 404);
});

test('parameters out of range are a 400 that names them, never a 503', async () => {
  const far = Buffer.from(`99999999999999999999|a-1`).toString('base64url');
  const cases: [string, RegExp][] = [
    ['/api/events?since=99999999999d', /since: must be an ISO 8601 time or a duration/],
    ['/api/events?since=9999d', /since: must lie within the last 3650 days/],
    ['/api/events?since=1970-01-01', /since: must lie within the last 3650 days/],
    ['/api/events?since=2999-01-01T00:00:00Z', /since: .*not in the future/],
    [`/api/events?since=${'1'.repeat(5000)}`, /since: is longer than any time or duration/],
    ['/api/events?limit=501', /limit: must be a whole number from 1 to 500/],
    ['/api/events?limit=1e9', /limit: must be a whole number from 1 to 500/],
    ['/api/events?limit=abc', /limit: must be a whole number from 1 to 500/],
    [`/api/events?cursor=${far}`, /cursor: is not a cursor/],
    [`/api/events?cursor=${'A'.repeat(1000)}`, /cursor: is not a cursor/],
  ];
  for (const [path, message] of cases) {
    const res = await get(path);
    assert.equal(res.status, 400, path);
    assert.match(((await res.json()) as { error: string }).error, message, path);
  }
  assert.equal((await get('/api/events?since=3650d&limit=500')).status, 200, 'in range is fine');
});

test('an aggregate lists its events newest first, page by page with a cursor', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(
      `/api/events?aggregate_id=A&since=1h&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.equal(res.status, 200);
    const body = (await res.json()) as { events: { eventId: string }[]; nextCursor: string | null };
    seen.push(...body.events.map((e) => e.eventId));
    cursor = body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  assert.deepEqual(seen, ['a-6', 'a-5', 'a-4', 'a-3', 'a-2', 'a-1', 'a-0']);
  assert.equal(pages, 3);
});

test('anomaly filter and since window', async () => {
  const res = await get('/api/events?anomaly=redelivered');
  const body = (await res.json()) as { events: { eventId: string; anomalies: string[] }[] };
  assert.deepEqual(
    body.events.map((e) => [e.eventId, e.anomalies]),
    [['a-2', ['redelivered']]],
  );
  const recent = (await (await get('/api/events?aggregate_id=A&since=10s')).json()) as {
    events: unknown[];
  };
  assert.equal(recent.events.length, 0, 'all seven are older than 10 s');
});

test('one journey: steps in time order with their gaps', async () => {
  const res = await get('/api/events/a-3');
  assert.equal(res.status, 200);
  const j = (await res.json()) as {
    aggregate: { id: string };
    kinds: string[];
    timeline: { stage: string; gapMs: number | null }[];
  };
  assert.equal(j.aggregate.id, 'A');
  assert.deepEqual(
    j.timeline.map((e) => [e.stage, e.gapMs]),
    [
      ['outbox.publish', null],
      ['deliver', 10],
    ],
  );
});
