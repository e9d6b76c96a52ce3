// The exposition as Prometheus reads it: promtool finds nothing wrong with acktrail's metrics,
// and every family in the contract is there with its type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { createTestDatabase, createTestVhost } from '@acktrail/orders-example/testing';
import { createReadOnlyRole, ordersConfig, TestExporter } from './testing/exporter.js';

function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, output });
    });
    child.stdin.end(text);
  });
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
  acktrail_notifications: 'gauge',
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
        notifications: { minIntervalSeconds: 0.001 },
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
