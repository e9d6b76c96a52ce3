// Services in other languages, as their SDKs trace them: for each instrumentation's shape
// (exporter/src/journeys/profiles/<id>/<id>.shape.ts, taken from its source at a pinned version), a client
// (test/fixtures/sdk-client.ts) sends real messages through RabbitMQ (one acked, one rejected into
// the dead-letter exchange, one requeued then acked, one never settled) and spans exactly as that
// instrumentation writes them, with the trace context carried in the AMQP headers. Dead-letter
// parking takes the rejected one from the dead-letter queue. Each journey is looked up as support
// would (by message id where the SDK records one, by trace id where it does not) and must agree
// with what the broker did: never "processed once" where no span and no broker fact says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import amqp from 'amqplib';
import {
  REPO_ROOT,
  RoleProcess,
  createTestVhost,
  management,
  waitFor,
  type TestVhost,
} from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import type { Browser } from 'playwright-core';
import {
  HANDLER_FAULT,
  SHAPE_NAMES,
  recordsMessageId,
  recordsSettle,
  shapeNamed,
  type ShapeName,
} from '@acktrail/exporter/testing/sdk-shapes';
import {
  launchChromium,
  signedInContext,
  startDashboard,
  type DashboardServer,
} from '../dashboard/test/server.js';

const TOKEN = 'sdk-journeys-token-0123456789';
const OPERATOR = 'sdk-journeys-operator-0123456789';
const NAMES = SHAPE_NAMES;

interface Journey {
  verdict: string;
  kinds: string[];
  deliveries: number;
  deadLetter: { reason: string } | null;
  matched: { by: string; value: string };
  parked: { id: string; queue: string; state: string }[];
  timeline: { stage: string }[];
  inferred: { fate: string; evidence: string; words: string }[];
}
interface Run {
  messages: Record<Outcome, { id: string; traceId: string }>;
  deliveries: { messageId: string; redelivered: boolean; settle: string }[];
}
type Outcome = 'acked' | 'deadLettered' | 'requeued' | 'unsettled';

const SECRET = 'sdk-journeys-dashboard-secret';

let vhost: TestVhost;
let dashboard: DashboardServer | undefined;
let browser: Browser | undefined;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
const runs = new Map<ShapeName, Run>();

/** The topology of one shape's service, declared before acktrail reads the broker. */
async function declare(prefix: string) {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.assertExchange(prefix, 'direct');
  await ch.assertExchange(`${prefix}.dlx`, 'fanout');
  await ch.assertQueue(`${prefix}.dlq`);
  await ch.bindQueue(`${prefix}.dlq`, `${prefix}.dlx`, '');
  await ch.assertQueue(`${prefix}.work`, {
    arguments: { 'x-dead-letter-exchange': `${prefix}.dlx` },
  });
  await ch.bindQueue(`${prefix}.work`, prefix, 'order.created');
  await conn.close();
}

before(async () => {
  vhost = await createTestVhost();
  for (const name of NAMES) await declare(name);
  exporter = await TestExporter.withStore(
    {
      ACKTRAIL_API_TOKEN: TOKEN,
      ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
      ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64'),
      ACKTRAIL_OTLP_GRPC_PORT: '0',
    },
    {
      rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
      deadLetters: {
        enabled: true,
        url: vhost.url,
        queues: NAMES.map((n) => ({ queue: `${n}.dlq` })),
      },
    },
  );
  // The spans' queues are inferred from the bindings acktrail has read: wait for them.
  await waitFor('the catalog has every dead-letter queue', async () => {
    const text = await (await fetch(`${exporter.url}/metrics`)).text();
    return NAMES.every((n) => text.includes(`queue="${n}.dlq",role="dead_letter"`));
  });
  for (const name of NAMES) {
    const client = new RoleProcess(
      `sdk-client ${name}`,
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${exporter.url}/v1/traces` },
      [name, vhost.url, name],
      join(REPO_ROOT, 'test/fixtures/sdk-client.ts'),
    );
    assert.equal(await client.exited, 0, client.stderr.join('\n'));
    runs.set(name, client.lines.at(-1) as unknown as Run);
  }
});

after(async () => {
  await browser?.close();
  await dashboard?.close();
  await exporter.close();
  await vhost.drop();
});

/** Where support finds the message: its id where the SDK records one, else its trace id. */
const recordsId = (name: ShapeName) => recordsMessageId(shapeNamed(name));

/** The kinds each shape's journeys must read, by what the message went through. */
const settles = (name: ShapeName) => recordsSettle(shapeNamed(name));
/** Where the broker's evidence (or MassTransit's own spans) settled what no span recorded. */
const inferred = (name: ShapeName, outcome: Outcome): string[] =>
  name === 'node-amqplib' ||
  outcome === 'acked' ||
  outcome === 'unsettled' ||
  (name === 'masstransit' && outcome === 'requeued')
    ? []
    : ['settle_inferred'];
// This client leaves at once and nobody scrapes the broker after it: an ack no span records stays
// not recorded here (test/sdk-settles.int.test.ts has the consumer that stays, and the counters).
const expected = (name: ShapeName): Record<Outcome, string[]> =>
  settles(name)
    ? {
        acked: ['delivered_once'],
        deadLettered: ['dead_lettered', ...inferred(name, 'deadLettered')],
        requeued: ['retried', ...inferred(name, 'requeued')],
        unsettled: name === 'node-amqplib' ? ['never_acked'] : ['settle_not_recorded'],
      }
    : {
        acked: ['settle_not_recorded'],
        deadLettered: ['dead_lettered', 'settle_inferred'],
        requeued: ['redelivered', 'settle_not_recorded', 'settle_inferred'],
        unsettled: ['settle_not_recorded'],
      };

async function journeyOf(name: ShapeName, outcome: Outcome): Promise<Journey> {
  const m = runs.get(name)!.messages[outcome];
  const id = recordsId(name) ? m.id : m.traceId;
  const want = expected(name)[outcome];
  return exporter.journey<Journey>(TOKEN, id, `${name} ${outcome}: ${want.join(', ')}`, (j) =>
    want.every((k) => j.kinds.includes(k)),
  );
}

describe('each SDK shape x each outcome, through RabbitMQ', () => {
  for (const name of NAMES)
    test(`${name}: the journeys read what the broker did`, async () => {
      const run = runs.get(name)!;
      const want = expected(name);
      // What the broker did, as the client saw it and as the broker holds it now.
      const requeued = run.deliveries.filter((d) => d.messageId === run.messages.requeued.id);
      assert.deepEqual(
        requeued.map((d) => d.redelivered),
        [false, true],
      );
      const v = encodeURIComponent(vhost.name);
      await waitFor(`${name}.work holds the never-settled message`, async () => {
        const q = (await management(`/queues/${v}/${name}.work`)) as { messages_ready?: number };
        return q.messages_ready === 1;
      });

      for (const outcome of ['acked', 'deadLettered', 'requeued', 'unsettled'] as Outcome[]) {
        const j = await journeyOf(name, outcome);
        assert.deepEqual(j.kinds, want[outcome], `${name} ${outcome}: ${j.verdict}`);
        assert.equal(j.matched.by, recordsId(name) ? 'event_id' : 'trace_id');
        // Agreement with the broker: a message it did not see acked is never "processed once",
        // one it dead-lettered is never anything else.
        if (outcome === 'deadLettered' || outcome === 'unsettled')
          assert.doesNotMatch(j.verdict, /processed once/, j.verdict);
        if (outcome !== 'deadLettered') assert.equal(j.deadLetter, null, j.verdict);
        if (outcome === 'requeued') assert.equal(j.deliveries, 2);
        if (!settles(name) && outcome !== 'deadLettered')
          assert.match(j.verdict, /not recorded by /);
      }
      const dead = await journeyOf(name, 'deadLettered');
      if (shapeNamed(name).faultQueue) {
        // Its own fault path: its handler threw and it moved the message to <queue>_error.
        assert.equal(dead.deadLetter?.reason, HANDLER_FAULT);
        assert.deepEqual(
          dead.inferred.map((i) => [i.fate, i.evidence]),
          [['dead_lettered', 'spans']],
        );
        return;
      }
      assert.equal(dead.deadLetter?.reason, 'rejected');
      // Where no span records the reject, the broker's evidence decided it, marked inferred.
      if (!settles(name))
        assert.deepEqual(
          dead.inferred.map((i) => i.fate),
          ['dead_lettered'],
          JSON.stringify(dead.inferred),
        );
      assert.deepEqual(
        dead.parked.map((p) => [p.queue, p.state]),
        [[`${name}.dlq`, 'parked']],
        "the journey shows parking's record of it",
      );
    });
});

test('a trace id that holds no journey is a 404; a Java message found by its trace id says so', async () => {
  const res = await fetch(`${exporter.url}/api/events/${'f'.repeat(32)}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(res.status, 404);
  const java = await journeyOf('java-agent', 'acked');
  assert.deepEqual(java.matched, {
    by: 'trace_id',
    value: runs.get('java-agent')!.messages.acked.traceId,
  });
});

test('coverage names each SDK and the line that closes its gaps', async () => {
  const { rows } = (await (
    await fetch(`${exporter.url}/api/coverage`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as {
    rows: {
      service: string;
      stage: string;
      sdk: { id: string };
      gaps: { attribute: string; fix: string; spans: number }[];
    }[];
  };
  const deliver = (service: string) =>
    rows.find((r) => r.service === service && r.stage === 'deliver')!;
  const gaps = (service: string) =>
    Object.fromEntries(deliver(service).gaps.map((g) => [g.attribute, g.fix]));
  assert.equal(deliver('dotnet-client-service').sdk.id, 'dotnet-client');
  assert.match(
    gaps('dotnet-client-service').settle!,
    /Activity\.Current\?\.SetTag\("acktrail\.settle\.outcome"/,
  );
  assert.match(
    gaps('dotnet-client-service').queue!,
    /infers it where the bindings route to one queue/,
  );
  assert.match(gaps('java-agent-service').event_id!, /the agent records no message id/);
  assert.ok(!('queue' in gaps('java-agent-service')), 'the process span names its queue');
  const settleGap = (service: string) =>
    deliver(service).gaps.find((g) => g.attribute === 'settle')?.spans;
  assert.equal(settleGap('node-amqplib-service'), 1, 'only the one its timeout ended');
  assert.equal(settleGap('dotnet-client-service'), 5, 'none of its five deliveries');
  assert.match(gaps('python-pika-service').delivery_attempt!, /method\.redelivered/);
  // What decides each service's settles, and the change that would record them.
  const settles = (service: string) =>
    (deliver(service) as unknown as { settles: Record<string, string | null> }).settles;
  assert.equal(settles('node-amqplib-service').inferred, null);
  assert.match(
    settles('dotnet-client-service').inferred!,
    /^every settle, from the broker's evidence/,
  );
  assert.match(
    settles('dotnet-client-service').toRecord!,
    /^park the queue's dead-letter queue .*SetTag\("acktrail\.settle\.outcome"/,
  );
  assert.match(settles('java-agent-service').inferred!, /requeue/);
});

test("support's page: a trace id in the search box finds the journey, says so, and shows its parked copy", async () => {
  const server = (dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    DASHBOARD_SECRET: SECRET,
  }));
  browser = await launchChromium();
  const context = await signedInContext(browser, server.url, SECRET);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${server.url}/`);
  const dead = runs.get('java-agent')!.messages.deadLettered;
  await page.getByLabel('Event, aggregate, message or trace id').first().fill(dead.traceId);
  await page.getByRole('button', { name: 'Look up' }).first().click();
  await page.getByTestId('verdict').waitFor();
  assert.match(
    await page.getByTestId('verdict').innerText(),
    /^dead-lettered after 1 attempt: rejected/,
  );
  assert.match(
    await page.getByTestId('matched').innerText(),
    new RegExp(`trace id ${dead.traceId}`),
  );
  const parked = page.getByTestId('parked');
  assert.match(await parked.innerText(), /in java-agent\.dlq: parked, waiting for an operator/);
  // The reject's requeue flag no span recorded: decided by the parked copy, shown as inferred.
  assert.match(
    await page.getByTestId('inferred').innerText(),
    /inferred\s+dead-lettered: x-death on the parked copy \(from java-agent\.work\)/,
  );
  const link = parked.getByRole('link');
  assert.match((await link.getAttribute('href')) ?? '', /^\/dead-letters\/\d+$/);
  // A silent SDK's acked message: its timeline says the settle is not recorded.
  await page.goto(`${server.url}/events/${runs.get('dotnet-client')!.messages.acked.id}`);
  assert.match(
    await page.getByTestId('entries').innerText(),
    /settle not recorded by RabbitMQ \.NET client 7/,
  );
  await page.close();
  await context.close();
});
