// The dashboard's Dead letters pages in headless Chromium, against the real reference pipeline
// and an exporter that parks its dead letters: a viewer sees the groups and the journeys but no
// bodies and no buttons (and the replay action refuses them); an operator, signed in with the
// operator secret and a name, opens the message, sees its body, replays it once the address is
// fixed; the order is confirmed once and the audit log names the operator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cleanUp, REPO_ROOT, waitFor } from '@acktrail/testing';
import { TestPipeline } from '@acktrail/orders-example/testing';
import { createReadOnlyRole, ordersConfig, TestExporter } from '@acktrail/exporter/testing';
import {
  assertAccessible,
  launchChromium,
  serverActionId,
  startDashboard,
  type DashboardServer,
} from './server.js';

const READER = 'dashboard-dl-reader-token-0123';
const OPERATOR = 'dashboard-dl-operator-token-0123';
const SECRET = 'dashboard-dl-viewer-secret-01';
const OPERATOR_SECRET = 'dashboard-dl-operator-secret-01';
const ARTIFACTS = join(REPO_ROOT, '.artifacts', 'dashboard');

let p: TestPipeline;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let dashboard: DashboardServer;
let browser: Browser;
let order: { order_id: number; event_id: string };

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  p = await TestPipeline.create({ PROVIDER_REJECT_ADDRESSES: '*@invalid.example' });
  role = await createReadOnlyRole(p.db.name);
  exporter = await TestExporter.withStore(
    {
      DATABASE_URL: role.url,
      ACKTRAIL_API_TOKEN: READER,
      ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
      ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64'),
    },
    ordersConfig({
      rabbitmq: { enabled: false },
      deadLetters: {
        enabled: true,
        url: p.vhost.url,
        queues: [
          {
            queue: 'orders.confirmations.dlq',
            replayTo: { exchange: 'orders.events', routingKey: 'order.created' },
          },
        ],
      },
    }),
  );
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: exporter.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
  await p.start('provider');
  await Promise.all([p.start('api'), p.start('relay'), p.start('worker', otel)]);
  order = await p.createOrder({ customer_email: 'erin@invalid.example', total: 4 });
  await waitFor('the dead letter parked', async () => {
    const res = await fetch(`${exporter.url}/api/dead-letters?event_id=${order.event_id}`, {
      headers: { authorization: `Bearer ${READER}` },
    });
    return ((await res.json()) as { deadLetters: unknown[] }).deadLetters.length === 1;
  });
  dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: READER,
    ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
    PROMETHEUS_URL: 'http://127.0.0.1:9',
    DASHBOARD_SECRET: SECRET,
    DASHBOARD_OPERATOR_SECRET: OPERATOR_SECRET,
  });
  browser = await launchChromium();
});

after(() =>
  cleanUp(
    () => browser.close(),
    () => dashboard.close(),
    () => p.close(),
    () => exporter.close(),
    () => role.drop(),
  ),
);

async function signIn(
  secret: string,
  name?: string,
): Promise<{ context: BrowserContext; pg: Page }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const pg = await context.newPage();
  pg.setDefaultTimeout(20_000);
  await pg.goto(`${dashboard.url}/dead-letters`);
  await pg.waitForURL('**/signin?next=*');
  await pg.getByLabel('Dashboard secret').fill(secret);
  if (name) await pg.getByLabel(/Your name/).fill(name);
  await pg.getByRole('button', { name: 'Sign in' }).click();
  await pg.waitForURL('**/dead-letters');
  return { context, pg };
}

test('a viewer sees the failure group and the message, but no body and no replay button', async () => {
  const { context, pg } = await signIn(SECRET);
  const groups = pg.getByTestId('groups');
  await groups.waitFor();
  await assertAccessible(pg, 'the dead letters');
  assert.match(
    await groups.innerText(),
    /orders\.confirmations\.dlq\s+provider <n>: invalid address\s+1/,
  );
  await pg.getByRole('link', { name: 'provider <n>: invalid address' }).click();
  await pg.getByTestId('messages').waitFor();
  await assertAccessible(pg, 'a failure group');
  assert.equal(await pg.getByRole('button', { name: /Replay/ }).count(), 0);
  await pg
    .getByRole('link', { name: /^#\d+$/ })
    .first()
    .click();
  await pg.getByTestId('reason').waitFor();
  assert.match(await pg.getByTestId('reason').innerText(), /provider 422: invalid address/);
  await pg.getByTestId('no-body').waitFor();
  await assertAccessible(pg, 'a dead letter, as a viewer');
  assert.equal(await pg.getByTestId('replay').count(), 0);
  assert.match(await pg.getByTestId('verdict').innerText(), /dead-lettered after 1 attempt/);
  // The replay action refuses a viewer even when it is called by hand, the way Next's client
  // calls it (403) or as a form without JavaScript (Next answers those refusals with its
  // not-found page).
  const id = /\/dead-letters\/(\d+)$/.exec(pg.url())?.[1] ?? '';
  const fields = { ids: id, back: id };
  const forged = await callAction(context, 'replay', `/dead-letters/${id}`, fields);
  assert.equal(forged.status(), 403);
  const form = await postAction(context, 'replay', `/dead-letters/${id}`, fields);
  assert.ok(form.status() >= 400, `a form post: ${form.status()}`);
  await pg.reload();
  assert.equal(await pg.getByTestId('state').innerText(), 'parked');
  // An id that is no dead letter: 404, said in the dead letters' words.
  const missing = await pg.goto(`${dashboard.url}/dead-letters/999999999`);
  assert.equal(missing?.status(), 404);
  assert.match(await pg.getByTestId('not-found').innerText(), /No dead letter has this id/);
  await context.close();
});

test("an operator's action posted from another site's page is refused", async () => {
  const { context, pg } = await signIn(OPERATOR_SECRET, 'mallory');
  await pg.getByRole('link', { name: 'provider <n>: invalid address' }).click();
  await pg
    .getByRole('link', { name: /^#\d+$/ })
    .first()
    .click();
  await pg.getByTestId('replay').waitFor();
  const id = /\/dead-letters\/(\d+)$/.exec(pg.url())?.[1] ?? '';
  const fields = { ids: id, back: id, reason: 'forged' };
  for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }]) {
    const forged = await callAction(context, 'discard', `/dead-letters/${id}`, fields, headers);
    assert.equal(forged.status(), 403, JSON.stringify(headers));
  }
  // An Origin of another host: Next aborts the action before it runs.
  const origin = { origin: 'http://evil.example' };
  for (const forged of [
    await callAction(context, 'discard', `/dead-letters/${id}`, fields, origin),
    await postAction(context, 'discard', `/dead-letters/${id}`, fields, origin),
  ])
    assert.ok(forged.status() >= 400, `another origin: ${forged.status()}`);
  await pg.reload();
  assert.equal(await pg.getByTestId('state').innerText(), 'parked');
  await context.close();
});

test('an operator replays it from its page after the fix: one e-mail, the journey and the audit log say who', async () => {
  await p.pool.query(`UPDATE orders SET customer_email = 'erin@example.com' WHERE id = $1`, [
    order.order_id,
  ]);
  const { context, pg } = await signIn(OPERATOR_SECRET, 'alice');
  assert.equal(await pg.getByTestId('operator').innerText(), 'operator alice');
  await pg.getByRole('link', { name: 'provider <n>: invalid address' }).click();
  // A bulk replay first shows where each message would go (a dry run): nothing is sent yet.
  await pg.getByRole('button', { name: 'Replay the whole group' }).click();
  await pg.getByTestId('targets').waitFor();
  assert.match(
    await pg.getByTestId('targets').innerText(),
    // This exporter runs without the broker topology (rabbitmq.enabled: false): the reach is not
    // known, and the page says why.
    /orders\.events\s+order\.created\s+config\s+configured \(replayTo\)\s+not known\s+without the broker topology[^\n]*\s+1$/,
  );
  await pg.getByTestId('confirm-replay').waitFor();
  await assertAccessible(pg, "a bulk replay's confirmation");
  await pg.getByRole('link', { name: 'Back, without replaying' }).click();
  await pg
    .getByRole('link', { name: /^#\d+$/ })
    .first()
    .click();
  // Operators see the message itself.
  assert.match(await pg.getByTestId('body').innerText(), new RegExp(order.event_id));
  await pg.getByTestId('replay').click();
  await pg.getByTestId('flash').waitFor();
  assert.equal(await pg.getByTestId('flash').innerText(), 'Replayed: the broker confirmed it.');
  assert.equal(await pg.getByTestId('state').innerText(), 'replayed');
  await waitFor('the journey reads replayed, then sent', async () => {
    await pg.reload();
    return /replayed by operator \(alice\) at \d\d:\d\d:\d\d; confirmation sent once/.test(
      await pg.getByTestId('verdict').innerText(),
    );
  });
  await pg.screenshot({ path: join(ARTIFACTS, 'dead-letter-replayed.png'), fullPage: true });
  const key = `order-confirmation:${order.order_id}`;
  assert.equal((await p.providerStats(key)).sent_for_key, 1);
  const confirmations = await p.pool.query(
    'SELECT 1 FROM order_confirmations WHERE order_id = $1',
    [order.order_id],
  );
  assert.equal(confirmations.rowCount, 1);

  await pg.goto(`${dashboard.url}/dead-letters/audit`);
  await pg.getByTestId('audit').waitFor();
  await assertAccessible(pg, 'the audit log');
  assert.match(
    await pg.getByTestId('audit').innerText(),
    new RegExp(
      `operator \\(alice\\) \\(asserted\\)\\s+replay\\s+#\\d+\\s+${order.event_id}\\s+replayed`,
    ),
  );
  await context.close();
});

/** A Server Action called by a hand-made request the way Next's client calls it. */
function callAction(
  context: BrowserContext,
  action: string,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  // React encodes the one FormData argument as a reference to the fields prefixed "1_".
  const multipart: Record<string, string> = { '0': '["$K1"]' };
  for (const [k, v] of Object.entries(fields)) multipart[`1_${k}`] = v;
  return context.request.post(`${dashboard.url}${path}`, {
    multipart,
    headers: { 'next-action': serverActionId(action), ...headers },
    maxRedirects: 0,
  });
}

/** A Server Action called by a hand-made form post, as a browser without JavaScript sends it. */
function postAction(
  context: BrowserContext,
  action: string,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return context.request.post(`${dashboard.url}${path}`, {
    multipart: { [`$ACTION_ID_${serverActionId(action)}`]: '', ...fields },
    headers,
    maxRedirects: 0,
  });
}
