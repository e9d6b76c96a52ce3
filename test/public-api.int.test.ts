// The reference pipeline's public API starts its own traces: a client's traceparent and baggage
// never reach an order's journey (a client must not be able to join, unsample or tag it). Its
// spans reach an exporter that wants the ingest token the standard way (OTEL_EXPORTER_OTLP_HEADERS).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { waitFor } from '@acktrail/testing';
import { TestPipeline } from '@acktrail/orders-example/testing';
import { TestExporter } from '@acktrail/exporter/testing';

const INGEST_TOKEN = 'public-api-ingest-token-0123';
let p: TestPipeline;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;

before(async () => {
  p = await TestPipeline.create();
  exporter = await TestExporter.withStore({ ACKTRAIL_INGEST_TOKEN: INGEST_TOKEN });
  await p.start('api', {
    OTEL_EXPORTER_OTLP_ENDPOINT: exporter.url,
    OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${INGEST_TOKEN}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
});
after(async () => {
  await p.close();
  await exporter.close();
});

test("a client's trace context and baggage are dropped at the door", async () => {
  const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const res = await fetch(`${p.apiUrl}/orders`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      // Sampled-out, in a trace of the client's choosing, tagged with an event id of its own.
      traceparent: `00-${clientTrace}-00f067aa0ba902b7-00`,
      baggage: 'acktrail.event_id=client-chosen-id',
    },
    body: JSON.stringify({ customer_email: 'jane@example.com', total: 12.5 }),
  });
  assert.equal(res.status, 201);
  const { event_id } = (await res.json()) as { event_id: string };

  const db = new pg.Client({ connectionString: exporter.storeUrl });
  await db.connect();
  try {
    const insert = await waitFor('the outbox insert step of the new order', async () => {
      const r = await db.query<{ trace_id: string }>(
        `SELECT trace_id FROM journey_steps WHERE event_id = $1 AND stage = 'outbox.insert'`,
        [event_id],
      );
      return r.rows[0];
    });
    assert.notEqual(insert.trace_id, clientTrace, 'the journey is in a trace of its own');
    const tagged = await db.query(
      `SELECT 1 FROM journey_steps WHERE event_id = 'client-chosen-id' OR trace_id = $1`,
      [clientTrace],
    );
    assert.equal(tagged.rows.length, 0);
  } finally {
    await db.end();
  }
});
