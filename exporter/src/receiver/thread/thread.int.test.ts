// OTLP on its own port runs on the ingest thread: what an SDK sees there is what it sees on the
// exporter's own loop (stored before the 200, refusals with their codes), and what the thread
// does is counted in the exporter's /metrics; its /readyz and /status are the exporter's; a
// shutdown refuses new requests there too. The real stock exporters (OTLP/HTTP and gRPC), a real
// store.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { waitFor } from '@acktrail/testing';
import { TestExporter } from '../../../testing/exporter.js';
import { countSteps, exportSpans, makeSpans } from '../../../testing/otlp.js';

const INGEST = 'thread-ingest-token-0123456789';
const SCRAPE = 'thread-scrape-token-0123456789';
const MB = 1024 * 1024;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let ingestUrl: string;

before(async () => {
  exporter = await TestExporter.withStore({
    ACKTRAIL_INGEST_PORT: '0',
    ACKTRAIL_OTLP_GRPC_PORT: '0',
    ACKTRAIL_INGEST_TOKEN: INGEST,
    ACKTRAIL_METRICS_TOKEN: SCRAPE,
  });
  ingestUrl = `http://127.0.0.1:${exporter.ports.ingest}`;
});
after(async () => {
  await exporter.close();
});

const spans = (eventId: string, n = 3) =>
  makeSpans(
    Array.from({ length: n }, (_, i) => ({
      name: 'deliver',
      startMs: Date.now() + i,
      attributes: { 'acktrail.event_id': `${eventId}-${i}`, 'acktrail.stage': 'deliver' },
    })),
  );

async function exportGrpc(batch: ReadableSpan[], token: string | null) {
  const metadata = new Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  const sdk = new OTLPTraceExporter({
    url: `http://127.0.0.1:${exporter.ports.otlpGrpc}`,
    metadata,
  });
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => {
    sdk.export(batch, resolve);
  });
  await sdk.shutdown();
  return result;
}

const scrape = async () =>
  (
    await fetch(`${exporter.url}/metrics`, { headers: { authorization: `Bearer ${SCRAPE}` } })
  ).text();
const sample = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);

test('the stock OTLP/HTTP and gRPC exporters: stored before their answer, refusals counted by the exporter', async () => {
  const http = await exportSpans(ingestUrl, spans('thread-http'), 'protobuf', INGEST);
  assert.equal(http.code, 0, String(http.error));
  assert.equal(await countSteps(exporter.storeUrl, `event_id LIKE 'thread-http-%'`), 3);
  const json = await exportSpans(ingestUrl, spans('thread-json'), 'json+gzip', INGEST);
  assert.equal(json.code, 0, String(json.error));
  assert.equal(await countSteps(exporter.storeUrl, `event_id LIKE 'thread-json-%'`), 3);
  const grpc = await exportGrpc(spans('thread-grpc'), INGEST);
  assert.equal(grpc.code, 0, String(grpc.error));
  assert.equal(await countSteps(exporter.storeUrl, `event_id LIKE 'thread-grpc-%'`), 3);

  assert.notEqual((await exportSpans(ingestUrl, spans('thread-no'), 'protobuf')).code, 0);
  assert.notEqual((await exportGrpc(spans('thread-no'), `${INGEST}x`)).code, 0);
  assert.equal(await countSteps(exporter.storeUrl, `event_id LIKE 'thread-no-%'`), 0);
  await waitFor('the refusals counted on the exporter', async () => {
    const text = await scrape();
    return (
      sample(text, 'acktrail_ingest_refused_total{reason="unauthorized"}') >= 2 &&
      sample(text, 'acktrail_spans_received_total{outcome="accepted"}') >= 9
    );
  });
});

test("a body held half-read on the thread is charged to the exporter's in-flight gauge, and given back", async () => {
  const req = request(`${ingestUrl}/v1/traces`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(MB),
      authorization: `Bearer ${INGEST}`,
    },
  });
  req.on('error', () => undefined);
  req.write(Buffer.alloc(MB / 2, ' '));
  await waitFor('half a MiB in flight', async () => {
    return sample(await scrape(), 'acktrail_ingest_inflight_bytes') >= MB / 2;
  });
  // The exporter's own loop answers meanwhile.
  assert.equal((await fetch(`${exporter.url}/healthz`)).status, 200);
  req.destroy();
  await waitFor('given back', async () => {
    return sample(await scrape(), 'acktrail_ingest_inflight_bytes') === 0;
  });
});

test("the ingest port's probes are the exporter's; /status wants the metrics token there too", async () => {
  const ready = await fetch(`${ingestUrl}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), await (await fetch(`${exporter.url}/readyz`)).json());
  assert.equal((await fetch(`${ingestUrl}/status`)).status, 401);
  const status = await fetch(`${ingestUrl}/status`, {
    headers: { authorization: `Bearer ${SCRAPE}` },
  });
  assert.equal(status.status, 200);
  assert.ok(((await status.json()) as { parts: unknown[] }).parts.length > 0);
  assert.equal((await fetch(`${ingestUrl}/healthz`)).status, 200);
  assert.equal(
    (await fetch(`${ingestUrl}/metrics`)).status,
    404,
    '/metrics is not on the ingest port',
  );
});

test('shutting down: the thread refuses new requests (503, shutting_down) and the connection closes', async () => {
  exporter.exporter.stopAccepting();
  const answered = await waitFor('the thread refuses', async () => {
    const res = await fetch(`${ingestUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INGEST}` },
      body: '{}',
    });
    await res.body?.cancel();
    return res.status === 503 ? res : null;
  });
  assert.equal(answered.headers.get('connection'), 'close');
  assert.match(await scrape(), /acktrail_ingest_refused_total\{reason="shutting_down"\} [1-9]/);
});
