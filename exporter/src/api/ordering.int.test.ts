// Per-aggregate ordering through the receiver, the store, the API and the counter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { TestExporter } from '../../testing/exporter.js';
import { exportSpans, makeSpans } from '../../testing/otlp.js';

const TOKEN = 'ordering-test-token-0123456789';
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;

before(async () => {
  exporter = await TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: TOKEN },
    { journeys: { words: { results: { stale: ['obsolete'] } } } },
  );
});
after(async () => {
  await exporter.close();
});

const t0 = Date.now() - 10_000;
const delivery = (eventId: string, version: number, at: number, result = 'sent') => ({
  name: 'orders.confirmations process',
  kind: SpanKind.CONSUMER,
  startMs: t0 + at,
  attributes: {
    'acktrail.event_id': eventId,
    'acktrail.stage': 'deliver',
    'acktrail.aggregate_id': 'ord-7',
    'acktrail.aggregate_version': version,
    'acktrail.result': result,
  },
});

test('versions processed out of order show in the journeys and the counter', async () => {
  // Two exports: the second is checked against what the first stored.
  const first = makeSpans([delivery('v1', 1, 0), delivery('v3', 3, 100)]);
  const second = makeSpans([delivery('v2', 2, 200), delivery('v2-late', 2, 300, 'obsolete')]);
  assert.equal((await exportSpans(exporter.url, first, 'protobuf')).code, 0);
  assert.equal((await exportSpans(exporter.url, second, 'json')).code, 0);

  const scrape = await exporter.scrape();
  for (const kind of ['gap', 'out_of_order', 'stale'])
    assert.equal(scrape.value('acktrail_aggregate_ordering_total', { kind }), 1, kind);

  const headers = { authorization: `Bearer ${TOKEN}` };
  const list = (await (
    await fetch(`${exporter.url}/api/events?aggregate_id=ord-7`, { headers })
  ).json()) as {
    ordering: {
      processed: { version: number }[];
      findings: { kind: string; eventId: string; missing?: number[] }[];
    };
  };
  assert.deepEqual(
    list.ordering.processed.map((p) => p.version),
    [1, 3, 2, 2],
  );
  assert.deepEqual(
    list.ordering.findings.map((f) => [f.kind, f.eventId, f.missing]),
    [
      ['gap', 'v3', [2]],
      ['out_of_order', 'v2', undefined],
      ['stale', 'v2-late', undefined],
    ],
  );
  const one = (await (await fetch(`${exporter.url}/api/events/v2`, { headers })).json()) as {
    ordering: { kind: string; after: number }[];
  };
  assert.deepEqual(one.ordering, [{ kind: 'out_of_order', eventId: 'v2', version: 2, after: 3 }]);

  // The same spans again (an SDK retry) count nothing twice.
  assert.equal((await exportSpans(exporter.url, second, 'protobuf')).code, 0);
  const again = await exporter.scrape();
  assert.equal(again.value('acktrail_aggregate_ordering_total', { kind: 'out_of_order' }), 1);
});
