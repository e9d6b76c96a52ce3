// Journeys whatever the trace sampler: a Node service with its own NodeSDK, built with acktrail's
// one line (withJourneys), samples its traces at parentbased_traceidratio 0.25 and at 0.0, as most
// production teams do. 40 messages through RabbitMQ, 30 acked and 10 rejected into the queue's
// dead-letter exchange (test/fixtures/sampled-client.ts). Every journey is found and right, the
// reject counter equals the rejects, and the app's own trace backend still got only its sample.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT, RoleProcess, createTestVhost, type TestVhost } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';

const TOKEN = 'sampling-token-0123456789';
const ACKED = 30;
const REJECTED = 10;

interface Journey {
  kinds: string[];
  verdict: string;
}
interface Run {
  acked: string[];
  rejected: string[];
  recorded: number;
  backend: { spans: number; unsampled: number };
}

let vhost: TestVhost;
let exporter: TestExporter;
before(async () => {
  vhost = await createTestVhost('acktrail_sampling');
  exporter = await TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: TOKEN },
    { rabbitmq: { enabled: true, vhosts: [vhost.name] } },
  );
});
after(async () => {
  await exporter.close();
  await vhost.drop();
});

async function run(queue: string, ratio: string): Promise<Run> {
  const client = new RoleProcess(
    'sampled-client',
    {
      ACKTRAIL_URL: exporter.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: ratio,
    },
    [vhost.url, queue, String(ACKED), String(REJECTED)],
    join(REPO_ROOT, 'test/fixtures/sampled-client.ts'),
  );
  assert.equal(await client.exited, 0, client.stderr.join('\n'));
  return client.lines.at(-1) as unknown as Run;
}

/** Per run: the spans the app's sampler dropped, which acktrail's recording sampler sent. */
const dropped: number[] = [];

const journey = (id: string, want: string) =>
  exporter.journey<Journey>(TOKEN, id, `${id}: ${want}`, (j) => j.kinds.includes(want));

for (const [ratio, queue] of [
  ['0.25', 'sampled.quarter'],
  ['0.0', 'sampled.none'],
] as const)
  test(`parentbased_traceidratio ${ratio}: 40 of 40 journeys, the counter equals the rejects`, async () => {
    const r = await run(queue, ratio);
    for (const id of r.acked) {
      const j = await journey(id, 'delivered_once');
      assert.deepEqual(j.kinds, ['delivered_once'], j.verdict);
    }
    for (const id of r.rejected) {
      const j = await journey(id, 'dead_lettered');
      assert.deepEqual(j.kinds, ['dead_lettered'], j.verdict);
    }
    const s = await exporter.scrape();
    assert.equal(s.value('acktrail_messages_rejected_total', { queue, fate: 'dead_lettered' }), 10);
    // The app's backend: only its sample (every span it got sampled; at 0.0 none at all).
    assert.equal(r.backend.unsampled, 0);
    const all = 2 * (ACKED + REJECTED);
    if (ratio === '0.0') assert.equal(r.backend.spans, 0);
    // At 0.25 a quarter of the 40 traces, whole (parent-based): 0 of 40 has odds of 1e-5.
    else
      assert.ok(
        r.backend.spans > 0 && r.backend.spans < all,
        `${r.backend.spans} of ${all} spans reached the backend`,
      );
    dropped.push(r.recorded - r.backend.spans);
  });

test('/api/coverage says the service samples, and that acktrail got the spans its sampler dropped', async () => {
  assert.equal(dropped.length, 2, 'both runs before');
  const res = await fetch(`${exporter.url}/api/coverage`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const { sampling } = (await res.json()) as {
    sampling: { service: string; recordedOnly: number; withThreshold: number; says: string }[];
  };
  const mine = sampling.find((s) => s.service === 'sampled-client');
  assert.ok(mine, JSON.stringify(sampling));
  assert.equal(mine.recordedOnly, dropped[0]! + dropped[1]!);
  assert.match(mine.says, /recording sampler sent the \d+ span\(s\) its sampler dropped/);
});
