// Killing the exporter (SIGKILL) while spans stream in loses no step that was answered with 200:
// the receiver answers only after the commit.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT, RoleProcess, type TestDatabase, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { jsonBody } from '@acktrail/exporter/testing/otlp';

let store: TestDatabase | undefined;
after(async () => {
  await store?.drop();
});

const body = (batch: number, size: number) => jsonBody(batch + 1, size, `dur-${batch}`);

test('SIGKILL during ingest loses no step answered with 200', async () => {
  store = await createTestDatabase();
  const exporter = new RoleProcess(
    'exporter',
    { ACKTRAIL_DATABASE_URL: store.url, ACKTRAIL_PORT: '0' },
    [],
    join(REPO_ROOT, 'exporter/src/main.ts'),
  );
  const ready = await exporter.ready();
  const url = `http://127.0.0.1:${String(ready.port)}/v1/traces`;

  const acked: number[] = [];
  let next = 0;
  let stop = false;
  const SIZE = 200;
  const sender = async () => {
    while (!stop) {
      const batch = next++;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(batch, SIZE),
        });
        if (res.status === 200) acked.push(batch);
      } catch {
        stop = true; // the exporter is gone
      }
    }
  };
  const senders = Array.from({ length: 8 }, sender);
  await waitFor('40 batches acknowledged', () => acked.length >= 40);
  await exporter.kill();
  await Promise.all(senders);

  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  try {
    const res = await client.query<{ trace_id: string; n: number }>(
      'SELECT trace_id, count(*)::int AS n FROM journey_steps GROUP BY trace_id',
    );
    const stored = new Map(res.rows.map((r) => [r.trace_id, r.n]));
    const lost = acked.filter((b) => stored.get((b + 1).toString(16).padStart(32, '0')) !== SIZE);
    assert.deepEqual(lost, [], `of ${acked.length} acknowledged batches`);
    assert.ok(next > acked.length, 'some requests were in flight when the exporter died');
  } finally {
    await client.end();
  }
});
