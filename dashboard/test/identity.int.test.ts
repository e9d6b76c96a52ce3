// Who the dashboard believes, tried by forging the other side's input: a session cookie signed
// with the viewers' secret (which every viewer knows), one with a far-future or stale issue time,
// an operator cookie when operators are off or after the operator secret changed; sign-in limits
// keyed on an address the client cannot choose; and identity headers, believed from our own
// reverse proxy on a trusted address and ignored from anyone else.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import {
  DashboardExited,
  startDashboard,
  startIdentityProxy,
  type DashboardServer,
} from './server.js';
import { SESSION_SECONDS, newSession, sessionKeys, type Role } from '../lib/auth/session.js';

const SECRET = 'identity-test-viewer-secret-01';
const OPERATOR_SECRET = 'identity-test-operator-secret-1';
const NOWHERE = { ACKTRAIL_API_URL: 'http://127.0.0.1:1', PROMETHEUS_URL: 'http://127.0.0.1:1' };

function signIn(base: string, secret: string, headers: Record<string, string> = {}) {
  return fetch(`${base}/signin/submit`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ secret, next: '/', name: 'alice' }).toString(),
  });
}

const cookieOf = (res: Response) =>
  /acktrail_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1];

/** What a page shows the holder of `cookie`: signed out, a viewer, or an operator. */
async function roleSeen(
  base: string,
  cookie: string | undefined,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}/coverage`, {
    redirect: 'manual',
    headers: { ...(cookie ? { cookie: `acktrail_session=${cookie}` } : {}), ...headers },
  });
  if (res.status === 307) return 'signed out';
  assert.equal(res.status, 200);
  const html = await res.text();
  const badge = /data-testid="operator"[^>]*>(.*?)<\/span>/.exec(html)?.[1];
  return badge ? badge.replace(/<!-- -->/g, '') : 'viewer';
}

/** A cookie as an attacker would sign it: any payload, any key. */
function forged(key: string | Buffer, payload: string): string {
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

describe('session cookies', () => {
  let d: DashboardServer;
  before(async () => {
    d = await startDashboard({
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_OPERATOR_SECRET: OPERATOR_SECRET,
    });
  });
  after(() => d.close());

  test('a viewer cannot sign an operator cookie with the secret every viewer knows', async () => {
    const viewer = cookieOf(await signIn(d.url, SECRET));
    assert.equal(await roleSeen(d.url, viewer), 'viewer');
    const operator = cookieOf(await signIn(d.url, OPERATOR_SECRET));
    assert.equal(await roleSeen(d.url, operator), 'operator alice');

    const now = Date.now();
    const name = Buffer.from('mallory').toString('base64url');
    const viewerKeys = sessionKeys({ viewer: SECRET, operator: SECRET }, null);
    for (const [what, cookie] of [
      // The old format: an HMAC under DASHBOARD_SECRET, with an expiry ten years out.
      ['the old cookie', forged(SECRET, `${now + 3650 * 86_400_000}.operator.${name}`)],
      ['an HMAC under DASHBOARD_SECRET', forged(SECRET, `v2.${now}.operator.${name}`)],
      [
        'the operator key derived from DASHBOARD_SECRET',
        newSession(viewerKeys, { role: 'operator', name: 'mallory' }, now),
      ],
      // The viewer's own valid cookie with its role changed.
      ['a viewer cookie relabelled', viewer!.replace('.viewer.', '.operator.')],
    ] as const) {
      assert.equal(await roleSeen(d.url, cookie), 'signed out', what);
    }
  });

  test('the server bounds a session to 12 hours from issue, whatever the cookie says', async () => {
    const keys = sessionKeys({ viewer: SECRET, operator: OPERATOR_SECRET }, null);
    const issued = (ms: number, role: Role = 'viewer') =>
      newSession(keys, { role, name: null }, ms);
    const now = Date.now();
    assert.equal(await roleSeen(d.url, issued(now - 60_000)), 'viewer', 'a fresh one is good');
    assert.equal(await roleSeen(d.url, issued(now - (SESSION_SECONDS + 60) * 1000)), 'signed out');
    assert.equal(
      await roleSeen(d.url, issued(now + 3650 * 86_400_000)),
      'signed out',
      'from the future',
    );
    assert.equal(await roleSeen(d.url, issued(now + 3650 * 86_400_000, 'operator')), 'signed out');
  });
});

describe('a change of a secret signs that role out', () => {
  test('operators off: no operator cookie is valid; a new operator secret: old operator cookies go, viewers stay', async () => {
    const first = await startDashboard({
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_OPERATOR_SECRET: OPERATOR_SECRET,
    });
    const viewer = cookieOf(await signIn(first.url, SECRET));
    const operator = cookieOf(await signIn(first.url, OPERATOR_SECRET));
    await first.close();

    const off = await startDashboard({ ...NOWHERE, DASHBOARD_SECRET: SECRET });
    try {
      assert.equal(await roleSeen(off.url, operator), 'signed out', 'operators are off');
      assert.equal(await roleSeen(off.url, viewer), 'viewer');
      // With operators off, an operator cookie under the only key there is: refused.
      const onlyViewer = sessionKeys({ viewer: SECRET, operator: null }, null);
      const relabelled = newSession(
        { viewer: null, operator: onlyViewer.viewer },
        { role: 'operator', name: null },
      );
      assert.equal(await roleSeen(off.url, relabelled), 'signed out');
    } finally {
      await off.close();
    }

    const rotated = await startDashboard({
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_OPERATOR_SECRET: `${OPERATOR_SECRET}-rotated`,
    });
    try {
      assert.equal(await roleSeen(rotated.url, operator), 'signed out');
      assert.equal(await roleSeen(rotated.url, viewer), 'viewer');
    } finally {
      await rotated.close();
    }
  });

  test('a session key of its own signs both roles; it must be long and differ from the secrets', async () => {
    await assert.rejects(
      startDashboard({ ...NOWHERE, DASHBOARD_SECRET: SECRET, DASHBOARD_SESSION_KEY: 'short' }),
      (err: unknown) =>
        err instanceof DashboardExited &&
        err.output.some((l) => /DASHBOARD_SESSION_KEY must be at least 32/.test(l)),
    );
    const env = {
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_OPERATOR_SECRET: OPERATOR_SECRET,
    };
    const key = 'identity-test-session-key-0123456789abcdef';
    const a = await startDashboard({ ...env, DASHBOARD_SESSION_KEY: key });
    const operator = cookieOf(await signIn(a.url, OPERATOR_SECRET));
    await a.close();
    const b = await startDashboard({ ...env, DASHBOARD_SESSION_KEY: `${key}-other` });
    try {
      assert.equal(
        await roleSeen(b.url, operator),
        'signed out',
        'a new session key signs everyone out',
      );
    } finally {
      await b.close();
    }
  });
});

describe('sign-in limits', () => {
  test('without a trusted proxy the key is the connection: a forged X-Forwarded-For changes nothing', async () => {
    const d = await startDashboard({ ...NOWHERE, DASHBOARD_SECRET: SECRET });
    try {
      for (let i = 0; i < 10; i++) {
        const res = await signIn(d.url, 'wrong-secret-wrong', { 'x-forwarded-for': `10.0.${i}.1` });
        assert.match(res.headers.get('location') ?? '', /error=1/);
      }
      const limited = await signIn(d.url, SECRET, { 'x-forwarded-for': '10.9.9.9' });
      assert.match(
        limited.headers.get('location') ?? '',
        /error=slow/,
        'even the right secret waits',
      );
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(limited.headers.get('set-cookie'), null);
    } finally {
      await d.close();
    }
  });

  test("behind a trusted proxy, per client by the proxy's address; past the global limit the right secret still gets in", async () => {
    const d = await startDashboard({
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_TRUSTED_PROXY: '127.0.0.1',
    });
    try {
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      for (let i = 0; i < 10; i++) await signIn(d.url, 'wrong-secret-wrong', from('10.0.0.1'));
      const limited = await signIn(d.url, SECRET, from('10.0.0.1'));
      assert.match(limited.headers.get('location') ?? '', /error=slow/);
      const other = await signIn(d.url, SECRET, from('10.0.0.2'));
      assert.equal(other.headers.get('location'), '/', 'another client is not held up');

      // Someone trying from a hundred addresses makes sign-in slower, not impossible.
      for (let i = 0; i < 100; i++) await signIn(d.url, 'wrong-secret-wrong', from(`10.1.${i}.1`));
      const anyone = await signIn(d.url, SECRET, from('10.9.9.9'));
      assert.equal(anyone.headers.get('location'), '/');
      assert.ok(cookieOf(anyone));
      const wrong = await signIn(d.url, 'wrong-secret-wrong', from('10.9.9.8'));
      assert.match(wrong.headers.get('location') ?? '', /error=1/);
    } finally {
      await d.close();
    }
  });
});

test('behind a load balancer and a trusted proxy (DASHBOARD_TRUSTED_HOPS=2): per client, and what the client wrote does not count', async () => {
  const d = await startDashboard({
    ...NOWHERE,
    DASHBOARD_SECRET: SECRET,
    DASHBOARD_TRUSTED_PROXY: '127.0.0.1',
    DASHBOARD_TRUSTED_HOPS: '2',
  });
  try {
    // The load balancer (192.0.2.50) appends the client, the ingress appends the load balancer.
    const from = (ip: string, forged = '198.51.100.1') => ({
      'x-forwarded-for': `${forged}, ${ip}, 192.0.2.50`,
    });
    for (let i = 0; i < 10; i++)
      await signIn(d.url, 'wrong-secret-wrong', from('10.0.0.1', `198.51.100.${i}`));
    const limited = await signIn(d.url, SECRET, from('10.0.0.1', '198.51.100.99'));
    assert.match(
      limited.headers.get('location') ?? '',
      /error=slow/,
      'a forged entry escapes nothing',
    );
    const other = await signIn(d.url, SECRET, from('10.0.0.2'));
    assert.equal(other.headers.get('location'), '/', 'the load balancer is not one shared bucket');
  } finally {
    await d.close();
  }
});

describe('identity from a trusted proxy', () => {
  let d: DashboardServer;
  let proxy: Awaited<ReturnType<typeof startIdentityProxy>>;
  let who: { user: string; groups?: string[] } | null = null;
  before(async () => {
    d = await startDashboard({
      ...NOWHERE,
      DASHBOARD_SECRET: SECRET,
      DASHBOARD_TRUSTED_PROXY: '127.0.0.2/32',
      DASHBOARD_OPERATORS: 'alice, group:sre',
    });
    proxy = await startIdentityProxy(d.url, () => who);
  });
  after(async () => {
    await proxy.close();
    await d.close();
  });

  test('the proxy names the user; DASHBOARD_OPERATORS makes users and groups operators', async () => {
    who = { user: 'alice' };
    assert.equal(await roleSeen(proxy.url, undefined), 'operator alice');
    who = { user: 'bob' };
    assert.equal(await roleSeen(proxy.url, undefined), 'viewer');
    who = { user: 'carol', groups: ['dev', 'sre'] };
    assert.equal(await roleSeen(proxy.url, undefined), 'operator carol');
    who = null;
    assert.equal(await roleSeen(proxy.url, undefined), 'signed out', 'no user named: sign in');
  });

  test('the same headers from any other address are ignored', async () => {
    const forgedHeaders = {
      'x-forwarded-user': 'alice',
      'x-forwarded-groups': 'sre',
      'x-acktrail-peer': '127.0.0.2',
    };
    assert.equal(await roleSeen(d.url, undefined, forgedHeaders), 'signed out');
    // A viewer's cookie with forged headers stays a viewer's.
    const viewer = cookieOf(await signIn(d.url, SECRET));
    assert.equal(await roleSeen(d.url, viewer, forgedHeaders), 'viewer');
  });
});
