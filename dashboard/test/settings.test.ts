// The dashboard's settings (lib/config/settings.ts), read from the environment by zod schemas: a
// bad value stops it naming the variable and what it must be, a credential is never echoed, and
// the defaults hold where nothing is set. Each case loads the module in a process of its own, as
// the server does (the react-server condition lets its `server-only` import load).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const SETTINGS = fileURLToPath(new URL('../lib/config/settings.ts', import.meta.url));
const PRINT = `const m = await import(${JSON.stringify(SETTINGS)});
console.log(JSON.stringify({ ...m.config, trustedProxy: m.config.trustedProxy !== null,
  operators: [...m.config.operators.users, ...m.config.operators.groups] }));`;

/** The settings a process with this environment reads, or the error that stopped it. */
async function settings(env: Record<string, string>) {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=react-server', '--import', 'tsx', '--input-type=module', '-e', PRINT],
      { env: { PATH: process.env.PATH, ...env }, timeout: 30_000 },
    );
    return { ok: JSON.parse(stdout) as Record<string, unknown> };
  } catch (err) {
    return { error: String((err as { stderr?: string }).stderr ?? err) };
  }
}

test('nothing set: the defaults', async () => {
  const { ok } = await settings({});
  assert.ok(ok);
  assert.equal(ok.apiUrl, 'http://127.0.0.1:9470');
  assert.equal(ok.prometheusUrl, 'http://127.0.0.1:9090');
  assert.equal(ok.trustedHops, 1);
  assert.equal(ok.grafanaUrl, null);
  assert.equal(ok.confirmationSloSeconds, 30);
  assert.deepEqual(ok.identity, {
    user: 'x-forwarded-user',
    email: 'x-forwarded-email',
    groups: 'x-forwarded-groups',
  });
});

test('values given are parsed: URLs, numbers, header names, matchers, lists', async () => {
  const { ok } = await settings({
    ACKTRAIL_API_URL: 'http://exporter:9470/',
    DASHBOARD_TRUSTED_HOPS: '2',
    DASHBOARD_USER_HEADER: ' X-Auth-Request-User ',
    DASHBOARD_TRUSTED_PROXY: '10.0.0.0/8, ::1',
    DASHBOARD_OPERATORS: 'ana, group:sre',
    PROMETHEUS_SELECTOR: 'cluster="eu-1"',
    PROMETHEUS_URL: 'http://reader:s3cret@prometheus:9090/',
    PROMETHEUS_HEADERS: 'X-Scope-OrgID=team%2Da',
    ACKTRAIL_CONFIRMATION_SLO_SECONDS: '12.5',
  });
  assert.ok(ok);
  assert.equal(ok.apiUrl, 'http://exporter:9470');
  assert.equal(ok.trustedHops, 2);
  assert.equal((ok.identity as Record<string, string>).user, 'x-auth-request-user');
  assert.equal(ok.trustedProxy, true);
  assert.deepEqual(ok.operators, ['ana', 'sre']);
  assert.equal(ok.prometheusSelector, 'cluster="eu-1"');
  assert.equal(ok.prometheusUrl, 'http://prometheus:9090', 'credentials out of the URL');
  assert.deepEqual(ok.prometheusHeaders, {
    authorization: `Basic ${Buffer.from('reader:s3cret').toString('base64')}`,
    'x-scope-orgid': 'team-a',
  });
  assert.equal(ok.confirmationSloSeconds, 12.5);
});

test('a bad value stops it, naming the variable and what it must be', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { ACKTRAIL_API_URL: 'exporter:9470' },
      /ACKTRAIL_API_URL must be an http or https URL, got "exporter:9470"/,
    ],
    [{ GRAFANA_URL: 'not a url' }, /GRAFANA_URL must be an http or https URL/],
    [
      { DASHBOARD_TRUSTED_HOPS: '11' },
      /DASHBOARD_TRUSTED_HOPS must be a whole number from 1 to 10/,
    ],
    [{ DASHBOARD_TRUSTED_HOPS: '1.5' }, /DASHBOARD_TRUSTED_HOPS must be a whole number/],
    [{ ACKTRAIL_CONFIRMATION_SLO_SECONDS: '-3' }, /must be a positive number of seconds/],
    [{ DASHBOARD_USER_HEADER: 'x user' }, /DASHBOARD_USER_HEADER must be an HTTP header name/],
    [{ DASHBOARD_TRUSTED_PROXY: '10.0.0.0/33' }, /DASHBOARD_TRUSTED_PROXY must list addresses/],
    [{ PROMETHEUS_SELECTOR: 'cluster=' }, /PROMETHEUS_SELECTOR must be label matchers/],
  ];
  for (const [env, message] of cases) {
    const { error } = await settings(env);
    assert.match(error ?? 'started', message, JSON.stringify(env));
  }
});

test('a credential in a bad value is never echoed', async () => {
  const url = await settings({ PROMETHEUS_URL: 'http://reader:hunter2-secret@[prometheus' });
  assert.match(url.error ?? 'started', /PROMETHEUS_URL must be an http or https URL/);
  assert.doesNotMatch(url.error!, /hunter2-secret/);
  const headers = await settings({ PROMETHEUS_HEADERS: 'Authorization Bearer hunter2-token' });
  assert.match(headers.error ?? 'started', /PROMETHEUS_HEADERS must be Name=value pairs.*pair 1/);
  assert.doesNotMatch(headers.error!, /hunter2-token/);
});
