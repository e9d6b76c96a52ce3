// The payments pipeline (examples/payments: stock OpenTelemetry only, its own schema, a quorum
// queue with a delivery limit, a classic queue with a DLX and one without) with its faults
// injected, against the real broker, PostgreSQL, the exporter and Prometheus with acktrail's
// alert rules. For each fault: the journey's kinds and verdict, the metrics, and the alert.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor, TestPrometheus } from '@acktrail/testing';
import { TestExporter, createReadOnlyRole, exampleConfig } from '@acktrail/exporter/testing';
import { AUDIT_LIMIT_CENTS, derivedId, topology } from '@acktrail/payments-example';
import { TestPayments, type PaymentsRole } from '@acktrail/payments-example/testing';

const TOKEN = 'payments-test-token-0123456789';

interface Journey {
  verdict: string;
  kinds: string[];
  publishes: number;
  deliveries: number;
  retries: { count: number };
  deadLetter: { reason: string } | null;
  notes: string[];
  timeline: { stage: string; source: string; attributes: Record<string, unknown> }[];
}

interface Gap {
  attribute: string;
  spans: number;
  fix: string;
}

let p: TestPayments;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let prometheus: TestPrometheus;

const start = (r: PaymentsRole, env: Record<string, string> = {}, name?: string) =>
  p.start(
    r,
    { OTEL_EXPORTER_OTLP_ENDPOINT: exporter.url, OTEL_BSP_SCHEDULE_DELAY: '100', ...env },
    name,
  );

before(async () => {
  p = await TestPayments.create({ LEDGER_DELIVERY_LIMIT: '2' });
  role = await createReadOnlyRole(p.db.name);
  exporter = await TestExporter.withStore(
    { DATABASE_URL: role.url, ACKTRAIL_API_TOKEN: TOKEN },
    exampleConfig('payments', {
      rabbitmq: { vhosts: [p.vhost.name], statsIntervalSeconds: 1 },
    }),
  );
  prometheus = await TestPrometheus.start({ acktrail: exporter.url });
  for (const r of ['api', 'relay', 'ledger', 'receipts', 'audit'] as const) await start(r);
  // The exporter knows the queues (their dead-letter exchanges) before the first reject.
  await waitFor('the queues in the exporter', async () =>
    (await exporter.scrape()).value('acktrail_messages_rejected_total', {
      queue: topology.AUDIT_QUEUE,
      fate: 'discarded',
    }) === 0
      ? true
      : null,
  );
});

after(async () => {
  await p.close();
  await prometheus.close();
  await exporter.close();
  await role.drop();
});

const api = (path: string) =>
  fetch(`${exporter.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });

const journey = (eventId: string, what: string, check: (j: Journey) => boolean) =>
  exporter.journey(TOKEN, eventId, what, check);

const metric = async (name: string, labels: Record<string, string>) =>
  (await exporter.scrape()).value(name, labels) ?? 0;
const stages = (j: Journey) => [...new Set(j.timeline.map((e) => e.stage))];
/** Done, and the consumer's spans are in (the pipeline's rows may come first). */
const done = (j: Journey) => j.kinds.includes('delivered_once') && stages(j).includes('settle');
const booked = (eventId: string) => derivedId(eventId, topology.BOOKED);

test('a payment: published from the outbox, delivered and acked, from stock spans alone', async () => {
  const intent = await p.createIntent(1250);
  const j = await journey(intent.event_id, 'booked', done);
  assert.deepEqual(j.kinds, ['delivered_once']);
  assert.match(j.verdict, /^booked once at \d\d:\d\d:\d\d$/);
  assert.deepEqual(j.notes, []);
  // A stock publish span is stage publish; the outbox shows as the row the exporter reads.
  for (const s of ['publish', 'deliver', 'settle']) assert.ok(stages(j).includes(s), s);
  assert.ok(!stages(j).includes('outbox.publish'));
  // The ledger's own publish (no outbox), routed to two queues and acked on both.
  const next = await journey(
    booked(intent.event_id),
    'receipt and audit acked',
    (x) => done(x) && x.deliveries === 2,
  );
  assert.equal(next.deliveries, 2);
  assert.equal(next.publishes, 1);
  // No result word anywhere in these spans: the ack that did the work ends end_to_end, timed
  // from the first publish (the journey has no outbox insert step).
  await waitFor(
    'end_to_end observed',
    async () =>
      (await metric('acktrail_stage_duration_seconds_count', { stage: 'end_to_end' })) >= 1,
  );
});

test('poison message: requeued until the quorum queue delivery limit dead-letters it', async () => {
  const intent = await p.createIntent(-5);
  const j = await journey(intent.event_id, 'dead-lettered', (x) =>
    x.kinds.includes('dead_lettered'),
  );
  assert.deepEqual(j.kinds, ['retried', 'dead_lettered']);
  assert.equal(j.deliveries, 3, 'a delivery limit of 2: the third return dead-letters');
  assert.equal(j.deadLetter?.reason, 'delivery_limit');
  assert.equal(j.verdict, 'dead-lettered after 3 attempts: delivery_limit');
  // Two returns requeued it; the third was past the limit: the broker dead-lettered it, and the
  // metrics and the anomaly list say so as its journey does.
  for (const [fate, n] of [
    ['requeued', 2],
    ['dead_lettered', 1],
  ] as const)
    assert.equal(
      await metric('acktrail_messages_rejected_total', { queue: topology.LEDGER_QUEUE, fate }),
      n,
      fate,
    );
  const listed = (await (await api('/api/events?anomaly=dead_lettered')).json()) as {
    events: { eventId: string }[];
  };
  assert.ok(
    listed.events.some((e) => e.eventId === intent.event_id),
    'listed under ?anomaly=dead_lettered',
  );
  await prometheus.waitForSeries(
    `acktrail_queue_messages_ready{queue="${topology.DEAD_LETTER_QUEUE}",role="dead_letter"} > 0`,
  );
});

test('rejected into the dead-letter exchange: dead_lettered, reason rejected', async () => {
  const intent = await p.createIntent(700, 'XXX');
  const j = await journey(booked(intent.event_id), 'dead-lettered', (x) =>
    x.kinds.includes('dead_lettered'),
  );
  assert.deepEqual(j.kinds, ['dead_lettered']);
  assert.equal(j.deadLetter?.reason, 'rejected');
  assert.equal(
    await metric('acktrail_messages_rejected_total', {
      queue: topology.RECEIPTS_QUEUE,
      fate: 'dead_lettered',
    }),
    1,
  );
});

test('rejected on a queue without a dead-letter exchange: discarded, said plainly', async () => {
  const intent = await p.createIntent(AUDIT_LIMIT_CENTS);
  const j = await journey(booked(intent.event_id), 'discarded', (x) =>
    x.kinds.includes('discarded'),
  );
  assert.deepEqual(j.kinds, ['discarded']);
  assert.equal(
    j.verdict,
    'discarded: rejected without requeue on payments.audit, which has no dead-letter exchange: the message is gone',
  );
  const listed = (await (await api('/api/events?anomaly=discarded')).json()) as {
    events: { eventId: string }[];
  };
  assert.deepEqual(
    listed.events.map((e) => e.eventId),
    [booked(intent.event_id)],
  );
  assert.equal(
    await metric('acktrail_messages_rejected_total', {
      queue: topology.AUDIT_QUEUE,
      fate: 'discarded',
    }),
    1,
  );
});

test('consumer crash before the ack: booked once; the lost delivery shows in the broker', async () => {
  await p.stop('ledger');
  const crashing = await start('ledger', { FAULT_LEDGER_CRASH_BEFORE_ACK: '1' }, 'ledger-crash');
  const intent = await p.createIntent(990);
  assert.equal(await crashing.exited, 1);
  await start('ledger', {}, 'ledger');
  const j = await journey(intent.event_id, 'booked', done);
  // The crashed consumer's span never ended, so it was never exported: stock spans show one
  // delivery. The broker counted the redelivery.
  assert.equal(j.deliveries, 1);
  assert.match(j.verdict, /^booked once at/);
  await prometheus.waitForSeries(
    `acktrail_queue_messages_redelivered_total{queue="${topology.LEDGER_QUEUE}"} > 0`,
  );
  // Coverage says what is missing to see it in the journey, and how to add it.
  const coverage = (await (await api('/api/coverage')).json()) as {
    rows: { service: string; stage: string; spans: number; withEventId: number; gaps: Gap[] }[];
  };
  const ledger = coverage.rows.find(
    (r) => r.service === 'payments-ledger' && r.stage === 'deliver',
  );
  assert.ok(ledger && ledger.spans === ledger.withEventId, JSON.stringify(ledger));
  const attempt = ledger.gaps.find((g) => g.attribute === 'delivery_attempt');
  assert.equal(attempt?.spans, ledger.spans);
  assert.match(attempt.fix, /redelivered flag/);
});

test('stopped consumer: published, not yet delivered; delivered once it is back', async () => {
  await p.stop('ledger');
  const intent = await p.createIntent(410);
  const j = await journey(intent.event_id, 'published', (x) => x.publishes === 1);
  assert.deepEqual(j.kinds, ['in_flight']);
  assert.equal(j.verdict, 'published, not yet delivered');

  // While it waits, the alerts of the faults above and of this one fire together.
  const firing = await waitFor(
    'AcktrailDeadLettersGrowing, AcktrailMessagesDiscarded and AcktrailConsumersDown firing',
    async () => {
      const alerts = await prometheus.query('ALERTS{alertstate="firing"}');
      const names = new Set(alerts.map((a) => a.metric.alertname));
      return [
        'AcktrailDeadLettersGrowing',
        'AcktrailMessagesDiscarded',
        'AcktrailConsumersDown',
      ].every((a) => names.has(a))
        ? alerts
        : null;
    },
    { timeoutMs: 180_000, intervalMs: 1000 },
  );
  const on = (name: string) =>
    firing.filter((a) => a.metric.alertname === name).map((a) => a.metric.queue);
  assert.deepEqual(on('AcktrailConsumersDown'), [topology.LEDGER_QUEUE]);
  assert.deepEqual(on('AcktrailMessagesDiscarded'), [topology.AUDIT_QUEUE]);
  assert.deepEqual(on('AcktrailDeadLettersGrowing'), [topology.DEAD_LETTER_QUEUE]);

  await start('ledger');
  await journey(intent.event_id, 'booked', done);
});
