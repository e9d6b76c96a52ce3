// A queue's facts decide a reject's fate, as a team adding a queue meets it: a new work queue
// declared with its dead-letter exchange right before its first traffic reads dead_lettered, in
// the journey and in acktrail_messages_rejected_total, with no scheduled refresh due (the spans
// that name it bring one forward); a policy that removes a queue's dead-letter exchange is what
// the next journeys read, while the earlier ones keep the fate the broker gave them. Spans from
// the stock OpenTelemetry amqplib instrumentation (test/fixtures/reject-client.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  REPO_ROOT,
  RoleProcess,
  createTestVhost,
  management,
  waitFor,
  type TestVhost,
} from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';

const TOKEN = 'queue-facts-token-0123456789';

interface Journey {
  kinds: string[];
}

let vhost: TestVhost;
before(async () => {
  vhost = await createTestVhost('acktrail_queue_facts');
});
after(async () => {
  await vhost.drop();
});

async function exporterWith(statsIntervalSeconds: number) {
  return TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: TOKEN },
    { rabbitmq: { enabled: true, vhosts: [vhost.name], statsIntervalSeconds } },
  );
}

/** Runs the client against `exporter`: `count` messages into `queue`, each rejected. */
async function rejectInto(
  exporter: TestExporter,
  queue: string,
  count: number,
  dlx = false,
): Promise<string[]> {
  const client = new RoleProcess(
    'reject-client',
    { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${exporter.url}/v1/traces` },
    [vhost.url, queue, String(count), ...(dlx ? ['dlx'] : [])],
    join(REPO_ROOT, 'test/fixtures/reject-client.ts'),
  );
  assert.equal(await client.exited, 0, client.stderr.join('\n'));
  return (client.lines.at(-1) as { ids: string[] }).ids;
}

/** Each event's journey once its reject is stored: its fate among `fates`. */
async function fates(exporter: TestExporter, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const known = ['dead_lettered', 'discarded', 'rejected'];
  for (const id of ids) {
    const j = await exporter.journey<Journey>(TOKEN, id, `${id} settled`, (x) =>
      x.kinds.some((k) => known.includes(k)),
    );
    out.set(
      id,
      j.kinds.find((k) => known.includes(k))!,
    );
  }
  return out;
}

const rejected = async (exporter: TestExporter, queue: string) => {
  const s = await exporter.scrape();
  const of = (fate: string) => s.value('acktrail_messages_rejected_total', { queue, fate }) ?? 0;
  return {
    dead_lettered: of('dead_lettered'),
    discarded: of('discarded'),
    rejected: of('rejected'),
  };
};

test('a queue declared 0 s before its first traffic: its rejects are dead_lettered, journey and counter', async () => {
  // No scheduled refresh in the test's time: the first one ran before the queue existed.
  const exporter = await exporterWith(3600);
  try {
    await waitFor(
      'the first topology',
      async () =>
        (await exporter.scrape()).value('acktrail_part_up', { part: 'broker_topology' }) === 1,
    );
    const ids = await rejectInto(exporter, 'fresh.work', 10, true);
    const read = await fates(exporter, ids);
    assert.deepEqual([...new Set(read.values())], ['dead_lettered']);
    assert.deepEqual(await rejected(exporter, 'fresh.work'), {
      dead_lettered: 10,
      discarded: 0,
      rejected: 0,
    });
  } finally {
    await exporter.close();
  }
});

test("a policy removes a queue's dead-letter exchange: the next journeys say discarded, the earlier keep dead_lettered", async () => {
  const policy = `/policies/${encodeURIComponent(vhost.name)}/facts-dlx`;
  await management(policy, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      pattern: '^policy\\.work$',
      definition: { 'dead-letter-exchange': 'policy.dlx' },
      'apply-to': 'queues',
    }),
  });
  const exporter = await exporterWith(1);
  try {
    const first = await rejectInto(exporter, 'policy.work', 3);
    assert.deepEqual([...new Set((await fates(exporter, first)).values())], ['dead_lettered']);

    await management(policy, { method: 'DELETE' });
    // Until a refresh reads the change, a reject is still decided with the policy: one message
    // at a time until one reads discarded, each counted with the fate its journey says.
    const probes: string[] = [];
    await waitFor(
      'a reject decided without the policy',
      async () => {
        const [id] = await rejectInto(exporter, 'policy.work', 1);
        probes.push(id!);
        return (await fates(exporter, [id!])).get(id!) === 'discarded';
      },
      { timeoutMs: 60_000, intervalMs: 0 },
    );
    const next = await rejectInto(exporter, 'policy.work', 3);
    assert.deepEqual([...new Set((await fates(exporter, next)).values())], ['discarded']);
    // The earlier journeys keep the fate the broker gave their messages.
    assert.deepEqual([...new Set((await fates(exporter, first)).values())], ['dead_lettered']);
    // The counter says what the journeys say, message by message.
    const all = await fates(exporter, [...first, ...probes, ...next]);
    const count = (fate: string) => [...all.values()].filter((f) => f === fate).length;
    assert.deepEqual(await rejected(exporter, 'policy.work'), {
      dead_lettered: count('dead_lettered'),
      discarded: count('discarded'),
      rejected: 0,
    });
  } finally {
    await exporter.close();
    await management(policy, { method: 'DELETE' }).catch(() => undefined);
  }
});
