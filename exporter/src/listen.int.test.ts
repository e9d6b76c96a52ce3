// The exporter's listeners and probes as a Kubernetes Service and a NetworkPolicy see them: /metrics
// and OTLP/HTTP on ports of their own when asked (and only there), /readyz ready once the store
// answers whatever else is down, /status saying what is; an idle keep-alive connection outlives
// the timeout its answers advertise.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { waitFor } from '@acktrail/testing';
import { TestExporter } from '../testing/exporter.js';
import { jsonBody } from '../testing/otlp.js';

let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;

before(async () => {
  exporter = await TestExporter.withStore(
    {
      ACKTRAIL_METRICS_PORT: '0',
      ACKTRAIL_INGEST_PORT: '0',
      // Short, so that the keep-alive test below idles past it in seconds (default 65).
      ACKTRAIL_KEEP_ALIVE_TIMEOUT_SECONDS: '1',
      // A broker nobody answers on: its collectors fail, which must not make the replica unready.
      RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:1',
    },
    { rabbitmq: { enabled: true, prometheusUrl: 'http://127.0.0.1:1' } },
  );
});
after(async () => {
  await exporter.close();
});

const on = (port: number | null) => `http://127.0.0.1:${port}`;
const status = async (url: string, init?: RequestInit) => {
  const res = await fetch(url, init);
  await res.body?.cancel();
  return res.status;
};
const spans = (eventId: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: jsonBody(3, 1, eventId),
});

test('each listener serves its own routes and the probes, nothing else', async () => {
  const { main, metrics, ingest } = exporter.ports;
  assert.ok(metrics && ingest && new Set([main, metrics, ingest]).size === 3);
  assert.equal(await status(`${on(metrics)}/metrics`), 200);
  assert.equal(await status(`${on(main)}/metrics`), 404, 'not on the API port');
  assert.equal(await status(`${on(ingest)}/metrics`), 404);
  assert.equal(await status(`${on(ingest)}/v1/traces`, spans('ev-own-port')), 200);
  assert.equal(await status(`${on(main)}/v1/traces`, spans('ev-main-port')), 404);
  assert.equal(await status(`${on(metrics)}/v1/traces`, spans('ev-metrics-port')), 404);
  assert.equal(await status(`${on(main)}/api/events/ev-own-port-0`), 401, 'the API stays on main');
  assert.equal(await status(`${on(metrics)}/api/events/ev-own-port-0`), 404);
  for (const port of [main, metrics, ingest]) {
    assert.equal(await status(`${on(port)}/healthz`), 200);
    assert.equal(await status(`${on(port)}/readyz`), 200);
  }
});

test('a broker away: /status degraded and naming it, /readyz still ready (the store answers)', async () => {
  await status(`${on(exporter.ports.metrics)}/metrics`);
  const body = await waitFor('the broker reported down', async () => {
    const s = (await (await fetch(`${exporter.url}/status`)).json()) as {
      status: string;
      down: string[];
    };
    return s.down.includes('rabbitmq') ? s : null;
  });
  assert.equal(body.status, 'degraded');
  const ready = await fetch(`${exporter.url}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: 'ready', reasons: [] });
});

test('a store that never answers: /readyz 503 with the reason, /healthz alive', async () => {
  const stranded = await TestExporter.start(
    { ACKTRAIL_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    { rabbitmq: { enabled: false } },
  );
  try {
    const res = await fetch(`${stranded.url}/readyz`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { status: string; reasons: string[] };
    assert.ok(['starting', 'unready'].includes(body.status), body.status);
    assert.match(body.reasons.join(), /journey store/);
    assert.equal(await status(`${stranded.url}/healthz`), 200);
  } finally {
    await stranded.close();
  }
});

test('with ACKTRAIL_METRICS_TOKEN, /metrics and /status want it, forged or borrowed tokens are refused, the probes stay open', async () => {
  const scrape = 'scrape-token-0123456789abcdef';
  const api = 'listen-api-token-0123456789';
  const guarded = await TestExporter.start(
    { ACKTRAIL_METRICS_TOKEN: scrape, ACKTRAIL_API_TOKEN: api, ACKTRAIL_METRICS_PORT: '0' },
    { rabbitmq: { enabled: false } },
  );
  try {
    const { main, metrics } = guarded.ports;
    const bearer = (t: string): RequestInit => ({ headers: { authorization: `Bearer ${t}` } });
    for (const url of [`${on(metrics)}/metrics`, `${on(main)}/status`, `${on(metrics)}/status`]) {
      assert.equal(await status(url), 401, `${url} without a token`);
      assert.equal(await status(url, bearer(`${scrape}x`)), 401, `${url} with a forged token`);
      assert.equal(await status(url, bearer(api)), 401, `${url} with the API's token`);
      assert.equal(await status(url, { headers: { authorization: scrape } }), 401, 'not Bearer');
      assert.equal(await status(url, bearer(scrape)), 200, url);
    }
    const text = await (await fetch(`${on(metrics)}/metrics`, bearer(scrape))).text();
    assert.match(text, /^# HELP acktrail_/m);
    for (const port of [main, metrics]) {
      assert.equal(await status(`${on(port)}/healthz`), 200);
      assert.equal(await status(`${on(port)}/readyz`), 200);
    }
  } finally {
    await guarded.close();
  }
});

test('a keep-alive connection idle a little past the timeout its answers advertise still takes the next request', async (t) => {
  const socket = connect(exporter.ports.ingest!, '127.0.0.1');
  t.after(() => socket.destroy());
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const get = 'GET /healthz HTTP/1.1\r\nHost: acktrail\r\nConnection: keep-alive\r\n\r\n';
  socket.write(get);
  await waitFor('the first answer', () => /\r\n\r\n[^]*ok/.test(received), { timeoutMs: 10_000 });
  const advertised = Number(/keep-alive: timeout=(\d+)/i.exec(received)?.[1]);
  assert.equal(advertised, 1, received);
  // The client's idleness is this test's input: a client whose timer ran a second and a half late
  // (Node itself closes one second after what it advertised unless told otherwise).
  await sleep(advertised * 1000 + 1500);
  const written = new Promise<Error | null | undefined>((resolve) => socket.write(get, resolve));
  assert.ifError(await written);
  await waitFor('the second answer', () => received.split('HTTP/1.1 200').length === 3, {
    timeoutMs: 10_000,
  });
});
