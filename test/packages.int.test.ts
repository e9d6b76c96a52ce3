// The packages as a user gets them: `npm pack` of @acktrail/conventions, @acktrail/instrument and
// @acktrail/exporter, installed from the tarballs into a scratch app outside the workspace (no
// workspace links, the npm registry for the rest). The app publishes and consumes with amqplib,
// traced by @acktrail/instrument, once with no SDK of its own and once with one it registered
// first; the exporter runs from the installed `acktrail` command (check-config, migrate, doctor,
// serve), and the journey of each message is found through its API.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  REPO_ROOT,
  type TestDatabase,
  type TestVhost,
  createTestVhost,
  freePort,
  waitFor,
} from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';

const run = promisify(execFile);
const TOKEN = 'packages-test-token-0123456789';
const PACKAGES = ['conventions', 'instrument', 'exporter'];

let app: string;
let store: TestDatabase | undefined;
let vhost: TestVhost | undefined;
let exporter: ChildProcess | undefined;
let exporterUrl: string;
const exporterOutput: string[] = [];

/** Runs a command of the scratch app; resolves with its stdout, rejects with its stderr. */
async function inApp(file: string, args: string[], env: Record<string, string> = {}) {
  const { stdout } = await run(file, args, {
    cwd: app,
    env: { ...process.env, ...env },
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

const acktrail = (args: string[], env: Record<string, string> = {}) =>
  inApp(join(app, 'node_modules/.bin/acktrail'), args, env);

before(async () => {
  app = mkdtempSync(join(tmpdir(), 'acktrail-app-'));
  const packs = join(app, 'packs');
  mkdirSync(packs);
  // prepack builds each package's dist/ first.
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--pack-destination', packs, ...PACKAGES.flatMap((p) => ['-w', p])],
    { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
  );
  const tarballs = (JSON.parse(stdout) as { filename: string }[]).map((p) =>
    join(packs, p.filename),
  );
  assert.equal(tarballs.length, 3);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'scratch-app',
      private: true,
      type: 'module',
      scripts: { serve: 'acktrail serve --config acktrail.yaml' },
      dependencies: {
        '@acktrail/conventions': `file:${tarballs[0]}`,
        '@acktrail/instrument': `file:${tarballs[1]}`,
        '@acktrail/exporter': `file:${tarballs[2]}`,
        '@opentelemetry/api': '^1.10.0',
        '@opentelemetry/resources': '^3.1.0',
        '@opentelemetry/sdk-trace': '^3.1.0',
        '@opentelemetry/exporter-trace-otlp-proto': '^0.301.0',
        amqplib: '^2.3.1',
      },
    }),
  );
  writeFileSync(join(app, 'app.mjs'), APP);
  writeFileSync(join(app, 'acktrail.yaml'), 'rabbitmq:\n  enabled: false\n');
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: app,
    timeout: 300_000,
  });
  store = await createTestDatabase('acktrail_packages', false);
  vhost = await createTestVhost('acktrail_packages');
});

after(async () => {
  if (exporter && exporter.exitCode === null) {
    exporter.kill('SIGTERM');
    await once(exporter, 'exit');
  }
  await vhost?.drop();
  await store?.drop();
  if (app) rmSync(app, { recursive: true, force: true });
});

/** Every folder of the install named node_modules/<name>. */
function copiesOf(name: string, dir = join(app, 'node_modules')): string[] {
  const found: string[] = [];
  if (existsSync(join(dir, name))) found.push(join(dir, name));
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (
      entry.isDirectory() &&
      entry.name === 'node_modules' &&
      existsSync(join(entry.parentPath, entry.name, name))
    )
      found.push(join(entry.parentPath, entry.name, name));
  return found;
}

test('the install holds one OpenTelemetry API (a peer) and no sdk-node, and no workspace link', () => {
  assert.equal(copiesOf('@opentelemetry/api').length, 1, copiesOf('@opentelemetry/api').join(' '));
  assert.deepEqual(copiesOf('@opentelemetry/sdk-node'), []);
  for (const p of PACKAGES)
    assert.ok(existsSync(join(app, 'node_modules/@acktrail', p, 'dist/index.js')), `${p} dist`);
  assert.ok(!existsSync(join(app, 'node_modules/@acktrail/instrument/src')), 'no sources shipped');
});

test('the acktrail command: --help, check-config, schema, migrate, doctor', async () => {
  for (const cmd of [[], ['serve'], ['migrate'], ['check-config'], ['doctor'], ['schema']])
    assert.match(await acktrail([...cmd, '--help']), /Usage: acktrail/);
  // The JSON Schema ships with the package: every key, its default and its description.
  type Node = {
    properties?: Partial<Record<string, Node>>;
    default?: unknown;
    description?: string;
  };
  const schema = JSON.parse(await acktrail(['schema'])) as Node & { $schema: string };
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  const at = (...path: string[]) =>
    path.reduce<Node | undefined>((n, key) => n?.properties?.[key], schema);
  assert.equal(at('journeys', 'words', 'aggregate')?.default, 'aggregate');
  assert.match(at('journeys', 'words', 'results', 'done')?.description ?? '', /did the work/);
  const effective = JSON.parse(
    await acktrail(['check-config', 'acktrail.yaml'], {
      ACKTRAIL_DATABASE_URL: store!.url.replace('//', '//acktrail:s3cret@'),
      ACKTRAIL_API_TOKEN: TOKEN,
    }),
  ) as { rabbitmq: { enabled: boolean }; apiToken: string; storeUrl: string };
  assert.equal(effective.rabbitmq.enabled, false);
  assert.equal(effective.apiToken, '****');
  assert.match(effective.storeUrl, /\/\/acktrail:\*\*\*\*@/);
  writeFileSync(join(app, 'bad.yaml'), 'journeys:\n  retentionDays: -1\n');
  await assert.rejects(
    acktrail(['check-config', 'bad.yaml']),
    (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr, /journeys\.retentionDays/);
      return true;
    },
  );
  const env = { ACKTRAIL_DATABASE_URL: store!.url };
  assert.match(await acktrail(['migrate'], env), /^applied \d{3}_/);
  assert.match(await acktrail(['migrate'], env), /up to date/);
  // doctor ships too: the store the package migrated, read as serve will.
  const doctor = await acktrail(['doctor', '--config', 'acktrail.yaml'], {
    ...env,
    ACKTRAIL_PORT: '0',
  });
  assert.match(doctor, /^ok {4}journey store \S+: \d+ migrations applied$/m);
});

test('acktrail serve from the package, then a traced publish and consume: the journey', async () => {
  const port = await freePort();
  exporterUrl = `http://127.0.0.1:${port}`;
  exporter = spawn(
    join(app, 'node_modules/.bin/acktrail'),
    ['serve', '--config', 'acktrail.yaml'],
    {
      cwd: app,
      env: {
        ...process.env,
        ACKTRAIL_PORT: String(port),
        ACKTRAIL_DATABASE_URL: store!.url,
        ACKTRAIL_API_TOKEN: TOKEN,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  for (const s of [exporter.stdout!, exporter.stderr!])
    s.on('data', (c: Buffer) => exporterOutput.push(c.toString()));
  await waitFor(`the exporter to be ready (${exporterOutput.join('')})`, async () => {
    if (exporter!.exitCode !== null) throw new Error(exporterOutput.join(''));
    return (await fetch(`${exporterUrl}/readyz`).catch(() => null))?.status === 200;
  });
  for (const mode of ['own', 'app']) {
    const out = await inApp(process.execPath, ['app.mjs', mode, vhost!.url, exporterUrl], {
      OTEL_SERVICE_NAME: `scratch-${mode}`,
    });
    const { eventId, ownSdk } = JSON.parse(out.trim().split('\n').at(-1)!) as {
      eventId: string;
      ownSdk: boolean;
    };
    assert.equal(ownSdk, mode === 'own', 'acktrail starts an SDK only when the app has none');
    let last: unknown;
    const journey = await waitFor(`the journey of ${eventId} (${mode} SDK)`, async () => {
      const res = await fetch(`${exporterUrl}/api/events/${eventId}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      last = res.status === 200 ? await res.json() : res.status;
      const j = last as { kinds?: string[] };
      return j.kinds?.includes('delivered_once')
        ? (last as { timeline: { stage: string; service: string }[] })
        : null;
    }).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; last: ${JSON.stringify(last)}`);
    });
    assert.deepEqual(
      journey.timeline.map((e) => e.stage),
      ['publish', 'deliver', 'settle'],
    );
    assert.ok(journey.timeline.every((e) => e.service === `scratch-${mode}`));
  }
});

// SIGTERM as `kill <pid>` sends it, to npm alone; SIGINT as a terminal's Ctrl-C sends it, to the
// foreground process group. (SIGINT to npm alone is forwarded to its `sh -c`, which holds it while
// it waits for its command, as POSIX shells do, and the command never receives it.)
test('SIGTERM to `npx acktrail serve` or `npm run serve`, and Ctrl-C (SIGINT to the group), stop the server: its port is freed', async () => {
  const starts = [
    ['npx acktrail serve', 'npx', ['acktrail', 'serve', '--config', 'acktrail.yaml']],
    ['npm run serve', 'npm', ['run', 'serve']],
  ] as const;
  for (const [how, command, args, signal] of starts.flatMap(([h, c, a]) =>
    (['SIGTERM', 'SIGINT'] as const).map((sig) => [`${h} (${sig})`, c, a, sig] as const),
  )) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/healthz`;
    const output: string[] = [];
    // A group of its own: the signal goes to npm alone, as `kill <pid>` sends it; whatever is
    // left of the group afterwards is killed at the end, so that a failure does not hang the file.
    const proc = spawn(command, args, {
      cwd: app,
      env: { ...process.env, ACKTRAIL_PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const s of [proc.stdout, proc.stderr]) s.on('data', (c: Buffer) => output.push(String(c)));
    await waitFor(`${how} answers`, async () => {
      if (proc.exitCode !== null) throw new Error(`${how} exited: ${output.join('')}`);
      return (await fetch(url).catch(() => null))?.status === 200;
    });
    try {
      if (signal === 'SIGINT') process.kill(-proc.pid!, signal);
      else proc.kill(signal);
      // npm's shell dies of the signal; the exporter it started stops too, draining: nothing
      // answers on its port any more, and it said that it stopped.
      await waitFor(
        `${how}: the port freed after the signal (${output.join('')})`,
        async () => (await fetch(url).catch(() => null)) === null,
        { timeoutMs: 20_000 },
      );
      await waitFor(`${how}: the exporter's last line`, () =>
        Promise.resolve(/"msg":"stopped"/.test(output.join(''))),
      );
    } finally {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // the group is gone: everything in it stopped
      }
    }
  }
});

// The scratch app. argv: own|app, amqp url, exporter url. "own": acktrail starts the SDK; "app":
// the app registers a tracer provider of its own first, and acktrail joins it.
const APP = `
const [mode, amqpUrl, exporterUrl] = process.argv.slice(2);
const { randomUUID } = await import('node:crypto');
let appProvider = null;
if (mode === 'app') {
  const { trace, context, propagation } = await import('@opentelemetry/api');
  const { TracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  appProvider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: exporterUrl + '/v1/traces' }) })],
  });
  trace.setGlobalTracerProvider(appProvider);
}
const { startTracing } = await import('@acktrail/instrument');
const tracing = startTracing({ endpoint: exporterUrl, instrumentPgAndHttp: false });
const { default: amqp } = await import('amqplib');
const conn = await amqp.connect(amqpUrl);
const ch = await conn.createConfirmChannel();
const queue = 'scratch.' + mode;
await ch.assertQueue(queue);
const eventId = randomUUID();
ch.sendToQueue(queue, Buffer.from('{}'), { messageId: eventId });
await ch.waitForConfirms();
const consumer = await conn.createChannel();
await new Promise((resolve) => {
  void consumer.consume(queue, (msg) => {
    if (!msg) return;
    consumer.ack(msg);
    resolve();
  });
});
await conn.close();
await tracing.flush();
if (appProvider) await appProvider.shutdown();
await tracing.shutdown();
console.log(JSON.stringify({ eventId, ownSdk: tracing.ownSdk }));
`;
