// The exposition as Prometheus reads it: promtool finds nothing wrong with acktrail's metrics in
// the text format, client_python's OpenMetrics parser (the format's reference implementation;
// promtool reads only the text format) nothing in the OpenMetrics one, every family in the
// contract is there with its type, and the metrics that come from journey steps carry exemplars
// (trace id and event id) in OpenMetrics only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { SpanKind } from '@opentelemetry/api';
import pg from 'pg';
import { createTestVhost } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { createReadOnlyRole, ordersConfig, TestExporter } from '../testing/exporter.js';
import { AMQPLIB, childOf, exportSpans, makeSpans } from '../testing/otlp.js';
import { PROMETHEUS_ACCEPT, openMetricsCheck, promtoolCheck } from '../testing/openmetrics.js';

async function fetchMetrics(url: string, accept?: string) {
  const res = await fetch(`${url}/metrics`, { headers: accept ? { accept } : {} });
  assert.equal(res.status, 200);
  return { type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** /metrics without fetch's own decompression: what goes over the wire. */
function rawMetrics(url: string, acceptEncoding: string) {
  return new Promise<{ encoding: string | undefined; vary: string; body: Buffer }>(
    (resolve, reject) => {
      get(`${url}/metrics`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            encoding: res.headers['content-encoding'],
            vary: res.headers.vary ?? '',
            body: Buffer.concat(chunks),
          });
        });
        res.on('error', reject);
      }).on('error', reject);
    },
  );
}

const CONTRACT: Record<string, string> = {
  acktrail_queue_messages_ready: 'gauge',
  acktrail_queue_messages_unacked: 'gauge',
  acktrail_queue_consumers: 'gauge',
  acktrail_queue_messages_published_total: 'counter',
  acktrail_queue_messages_delivered_total: 'counter',
  acktrail_queue_messages_acked_total: 'counter',
  acktrail_queue_messages_redelivered_total: 'counter',
  acktrail_outbox_unpublished_events: 'gauge',
  acktrail_outbox_oldest_unpublished_age_seconds: 'gauge',
  acktrail_outbox_published_events_total: 'counter',
  acktrail_confirmation_latency_seconds: 'histogram',
  acktrail_oldest_pending_confirmation_age_seconds: 'gauge',
  acktrail_aggregates: 'gauge',
  acktrail_provider_requests_total: 'counter',
  acktrail_provider_request_duration_seconds: 'histogram',
  acktrail_collector_success: 'gauge',
  acktrail_collector_duration_seconds: 'gauge',
  acktrail_collector_data_age_seconds: 'gauge',
  acktrail_build_info: 'gauge',
};

test('promtool check metrics passes and the contract families are all exposed', async () => {
  const db = await createTestDatabase('acktrail_metrics');
  const role = await createReadOnlyRole(db.name);
  const vhost = await createTestVhost();
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    await admin.query(
      `INSERT INTO orders (id, total, customer_email) VALUES (1, 1, 'a@example.com')`,
    );
    await admin.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload) VALUES (gen_random_uuid(), 'order.created', 1, 1, '{}')`,
    );
    const exporter = await TestExporter.start(
      { DATABASE_URL: role.url },
      ordersConfig({
        rabbitmq: { vhosts: ['/', vhost.name] },
        aggregateCounts: { minIntervalSeconds: 0.001 },
      }),
    );
    try {
      await exporter.scrape();
      await admin.query(
        `INSERT INTO order_confirmations (event_id, order_id) SELECT id, 1 FROM outbox_events`,
      );
      await admin.query(
        `INSERT INTO notification_attempts (event_id, attempt, provider, outcome, status_code, duration)
         VALUES (gen_random_uuid(), 1, 'mailer', 'success', 202, '0.1 s')`,
      );
      const text = (await exporter.scrape()).text;
      const check = await promtoolCheck(text);
      assert.equal(check.code, 0, check.output);
      assert.equal(check.output.trim(), '', 'promtool reports nothing');
      for (const [name, type] of Object.entries(CONTRACT)) {
        assert.match(text, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), `${name} ${type}`);
      }
      assert.doesNotMatch(text, /event_id=|order_id=/, 'no unbounded ids as labels');
      assert.match(text, /^# TYPE process_cpu_seconds_total counter$/m, 'process metrics');
      assert.match(text, /^# TYPE nodejs_eventloop_lag_seconds gauge$/m, 'Node.js metrics');

      // The same exposition in OpenMetrics, for a scraper that asks for it.
      const om = await fetchMetrics(exporter.url, PROMETHEUS_ACCEPT);
      assert.equal(om.type, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
      assert.match(om.text, /\n# EOF\n$/);
      const read = await openMetricsCheck(om.text);
      for (const [name, type] of Object.entries(CONTRACT))
        assert.equal(read.families[name.replace(/_total$/, '')], type, `${name} in OpenMetrics`);
      const plain = await fetchMetrics(exporter.url);
      assert.equal(plain.type, 'text/plain; version=0.0.4; charset=utf-8', 'the default');
      assert.match(
        plain.text,
        /^acktrail_build_info\{version="\d+\.\d+\.\d+",revision="[\w.-]+"\} 1$/m,
      );

      // Gzipped when the scraper asks (Prometheus always does), plain when it does not.
      const gz = await rawMetrics(exporter.url, 'gzip, identity;q=0.5');
      assert.equal(gz.encoding, 'gzip');
      assert.match(gz.vary, /accept-encoding/);
      const unzipped = gunzipSync(gz.body).toString();
      assert.match(unzipped, /^# TYPE acktrail_queue_messages_ready gauge$/m);
      assert.ok(gz.body.length * 3 < unzipped.length, 'compressed');
      const identity = await rawMetrics(exporter.url, 'identity');
      assert.equal(identity.encoding, undefined);
      assert.match(identity.body.toString(), /^# TYPE acktrail_queue_messages_ready gauge$/m);
    } finally {
      await exporter.close();
    }
  } finally {
    await admin.end();
    await vhost.drop();
    await db.drop();
    await role.drop();
  }
});

test('stage durations, redeliveries and duplicate publishes carry exemplars, in OpenMetrics only', async () => {
  const exporter = await TestExporter.withStore();
  try {
    const eventId = randomUUID();
    const publish = (copy: number) => ({
      name: 'jobs publish',
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.message_id': eventId, copy },
    });
    const [first, second] = makeSpans([publish(1), publish(2)], 'jobs-api', AMQPLIB);
    const [deliver] = makeSpans(
      [
        {
          name: 'jobs process',
          kind: SpanKind.CONSUMER,
          parent: childOf(first!),
          durationMs: 40,
          attributes: {
            'messaging.system': 'rabbitmq',
            'messaging.message_id': eventId,
            'acktrail.delivery.redelivered': true,
          },
        },
      ],
      'jobs-worker',
      AMQPLIB,
    );
    assert.equal(
      (await exportSpans(exporter.url, [first!, second!, deliver!], 'protobuf')).code,
      0,
    );

    const plain = await fetchMetrics(exporter.url);
    assert.doesNotMatch(plain.text, / # \{/, 'no exemplar in the text format');
    assert.equal((await promtoolCheck(plain.text)).code, 0);

    const read = await openMetricsCheck((await fetchMetrics(exporter.url, PROMETHEUS_ACCEPT)).text);
    const ids = { trace_id: deliver!.spanContext().traceId, event_id: eventId };
    const find = (sample: string, labels: Record<string, string>) =>
      read.exemplars.find(
        (e) => e.sample === sample && Object.entries(labels).every(([k, v]) => e.labels[k] === v),
      );
    // 40 ms of processing: the exemplar sits on the 0.05 bucket, the first at or above it.
    const processing = find('acktrail_stage_duration_seconds_bucket', { stage: 'processing' });
    assert.ok(processing, 'an exemplar on the processing stage');
    assert.deepEqual(processing.exemplar, ids);
    assert.equal(processing.labels.le, '0.05');
    assert.ok(Math.abs(processing.value - 0.04) < 1e-9);
    assert.deepEqual(find('acktrail_redeliveries_total', { queue: 'jobs' })?.exemplar, ids);
    assert.equal(find('acktrail_duplicate_publishes_total', {})?.exemplar.event_id, eventId);
  } finally {
    await exporter.close();
  }
});
