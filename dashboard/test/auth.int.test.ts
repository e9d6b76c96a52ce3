// The dashboard's doors, tried as an attacker would: it never starts open, sign-in is rate-limited,
// `next` never leaves the site, state changes are POST from our own pages only, the cookie is
// Secure behind a trusted TLS proxy, and scripts run only with the request's nonce (in Chromium).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { cleanUp, waitFor } from '@acktrail/testing';
import { DashboardExited, launchChromium, startDashboard, type DashboardServer } from './server.js';

const SECRET = 'auth-test-secret-0123456789';
// Nothing answers here: pages show their "exporter unreachable" state, which is all these tests need.
const NOWHERE = { ACKTRAIL_API_URL: 'http://127.0.0.1:1', PROMETHEUS_URL: 'http://127.0.0.1:1' };

function signIn(
  base: string,
  secret: string,
  { next = '/', headers = {} }: { next?: string; headers?: Record<string, string> } = {},
) {
  return fetch(`${base}/signin/submit`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ secret, next }).toString(),
  });
}

describe('it never starts open', () => {
  for (const [what, env, message] of [
    ['without DASHBOARD_SECRET', {}, /DASHBOARD_SECRET is not set/],
    ['with a short secret', { DASHBOARD_SECRET: 'short-secret' }, /at least 16 characters/],
    [
      "with the compose file's old demo default",
      { DASHBOARD_SECRET: 'local-demo-secret-change-me' },
      /example value/,
    ],
    ['with an unknown DASHBOARD_AUTH', { DASHBOARD_AUTH: 'maybe' }, /DASHBOARD_AUTH must be/],
  ] as const) {
    test(`refuses to start ${what}, naming the setting`, async () => {
      await assert.rejects(
        startDashboard({ ...NOWHERE, ...env }),
        (err: unknown) =>
          err instanceof DashboardExited &&
          err.code === 2 &&
          err.output.some((l) => message.test(l)),
      );
    });
  }

  test('DASHBOARD_AUTH=none opens it on purpose, and says so', async () => {
    const d = await startDashboard({ ...NOWHERE, DASHBOARD_AUTH: 'none' });
    try {
      const res = await fetch(`${d.url}/`, { redirect: 'manual' });
      assert.equal(res.status, 200);
      assert.ok(d.output.some((l) => /DASHBOARD_AUTH=none: every page is open/.test(l)));
    } finally {
      await d.close();
    }
  });
});

describe('with a secret', () => {
  let d: DashboardServer;
  let browser: Browser;
  before(async () => {
    d = await startDashboard({ ...NOWHERE, DASHBOARD_SECRET: SECRET });
    browser = await launchChromium();
  });
  after(() =>
    cleanUp(
      () => browser.close(),
      () => d.close(),
    ),
  );

  test("the sign-in page's own icon is there before signing in; pages are not", async () => {
    const icon = await fetch(`${d.url}/icon.svg`, { redirect: 'manual' });
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /image\/svg\+xml/);
    const page = await fetch(`${d.url}/events/x`, { redirect: 'manual' });
    assert.equal(page.status, 307);
    assert.match(page.headers.get('location') ?? '', /\/signin\?next=%2Fevents%2Fx$/);
  });

  test('next= never leaves the site: /signin?next=/%09/evil.example signs in to the dashboard', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${d.url}/signin?next=/%09/evil.example`);
    await page.getByLabel('Dashboard secret').fill(SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    assert.equal(new URL(page.url()).origin, d.url);
    await context.close();
    for (const next of [
      '/\t/evil.example',
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      // Each resolves to the path //evil.example, which a browser reads as another host.
      '/.//evil.example',
      '/%2e//evil.example',
      '/a/..//evil.example',
    ]) {
      const res = await signIn(d.url, SECRET, { next });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/', JSON.stringify(next));
    }
    const deep = await signIn(d.url, SECRET, { next: '/events/abc?x=1' });
    assert.equal(deep.headers.get('location'), '/events/abc?x=1', 'a path of the site is kept');
  });

  test('a POST from another site is refused; sign-out is a POST that ends the session', async () => {
    const evil = await signIn(d.url, SECRET, { headers: { origin: 'http://evil.example' } });
    assert.equal(evil.status, 403);
    const fetched = await signIn(d.url, SECRET, { headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(fetched.status, 403);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${d.url}/signin`);
    await page.getByLabel('Dashboard secret').fill(SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    const get = await context.request.get(`${d.url}/signout`, { maxRedirects: 0 });
    assert.equal(get.status(), 405, 'a GET (a link, an image) signs no one out');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/signin');
    assert.deepEqual(
      (await context.cookies()).filter((c) => c.name === 'acktrail_session'),
      [],
    );
    await page.goto(`${d.url}/lookup?q=1`);
    await page.waitForURL((u) => u.pathname === '/signin');
    await context.close();
  });

  test('scripts run with the nonce of their request only: no inline script, and the page still works', async () => {
    const res = await fetch(`${d.url}/signin`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const script = csp.split(';').find((p) => p.trim().startsWith('script-src'))!;
    assert.doesNotMatch(script, /unsafe-inline/);
    const nonce = /'nonce-([^']+)'/.exec(script)?.[1];
    assert.ok(nonce);
    const html = await res.text();
    const tags = html.match(/<script\b[^>]*>/g) ?? [];
    assert.ok(tags.length > 0);
    assert.deepEqual(
      tags.filter((t) => !t.includes(`nonce="${nonce}"`)),
      [],
    );
    const again = await fetch(`${d.url}/signin`);
    assert.notEqual(
      /'nonce-([^']+)'/.exec(again.headers.get('content-security-policy')!)?.[1],
      nonce,
    );

    // In Chromium: the page hydrates (the theme select works) and nothing is refused.
    const context = await browser.newContext();
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${d.url}/signin`);
    await page.getByLabel('Theme').selectOption('dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    // Markup injected into the page, as an XSS would, runs nothing.
    await page.evaluate(() => {
      document.body.insertAdjacentHTML(
        'beforeend',
        '<img src="/no-such.png" onerror="window.injected = true">',
      );
    });
    await waitFor('the refusal reported', () => refused.length >= 1);
    assert.equal(await page.evaluate(() => 'injected' in window), false);
    assert.ok(
      refused.every((m) => /inline event handler/i.test(m)),
      refused.join('\n'),
    );
    await context.close();
  });
});

describe('behind a TLS proxy', () => {
  test('the session cookie is Secure when a trusted proxy says https, and only then', async () => {
    const trusted = await startDashboard({
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_TRUSTED_PROXY: '127.0.0.1/32',
    });
    const direct = await startDashboard({ ...NOWHERE, DASHBOARD_SECRET: SECRET });
    try {
      const https = { headers: { 'x-forwarded-proto': 'https' } };
      const cookie = async (base: string, o = {}) =>
        (await signIn(base, SECRET, o)).headers.get('set-cookie') ?? '';
      assert.match(await cookie(trusted.url, https), /; Secure/i);
      assert.doesNotMatch(await cookie(trusted.url), /; Secure/i, 'plain http through the proxy');
      assert.doesNotMatch(
        await cookie(direct.url, https),
        /; Secure/i,
        'the header is not believed',
      );
    } finally {
      await trusted.close();
      await direct.close();
    }
  });
});
