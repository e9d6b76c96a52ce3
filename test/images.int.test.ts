// The three images as a user runs them: built from the Dockerfile as it is (scripts/images.sh:
// buildah, chroot isolation, no registry), then each image's filesystem run as the image's user
// with its own entrypoint and command (`buildah run --isolation chroot`, on this machine's
// network) against this machine's services. The exporter migrates its store, answers /readyz,
// /metrics and an OTLP post whose journey its API then serves; the dashboard answers its sign-in
// page and the static files it links; the pipeline image runs its migrate role.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  REPO_ROOT,
  createTestDatabase,
  createTestVhost,
  freePort,
  waitFor,
  type TestDatabase,
  type TestVhost,
} from '@acktrail/testing';
import { exportSpans, journeySpans } from '@acktrail/exporter/testing/otlp';

const run = promisify(execFile);
const { version: VERSION } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
const API_TOKEN = 'images-test-api-token-0123456789';
const INGEST_TOKEN = 'images-test-ingest-token-0123456789';
const DASHBOARD_SECRET = 'images-test-dashboard-secret-0123456789';

interface ImageConfig {
  User?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
}

interface Running {
  child: ChildProcess;
  output: string[];
  stop(): Promise<void>;
}

const containers: string[] = [];
const running: Running[] = [];
let scratch: string;
let store: TestDatabase | undefined;
let pipelineDb: TestDatabase | undefined;
let vhost: TestVhost | undefined;

before(async () => {
  // Minutes the first time on a machine (a Debian root, npm ci, the builds); cached after.
  const build = spawn('bash', ['scripts/images.sh', 'build'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [code] = (await once(build, 'exit')) as [number | null];
  assert.equal(code, 0, 'scripts/images.sh build');
  scratch = mkdtempSync(join(tmpdir(), 'acktrail-images-'));
  store = await createTestDatabase('acktrail_images_store');
  pipelineDb = await createTestDatabase('acktrail_images_pipeline');
  vhost = await createTestVhost('acktrail_images');
});

after(async () => {
  await Promise.all(running.map((r) => r.stop()));
  for (const c of containers) await run('buildah', ['rm', c]).catch(() => undefined);
  await vhost?.drop();
  await store?.drop();
  await pipelineDb?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function imageConfig(image: string): Promise<ImageConfig> {
  const { stdout } = await run('buildah', ['inspect', '--type', 'image', image], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return (JSON.parse(stdout) as { OCIv1: { config: ImageConfig } }).OCIv1.config;
}

/**
 * Runs the image's entrypoint and command (`args` in place of its command) as its user, with
 * `env` and the files `mounts` (host path -> path in the image) added.
 */
async function runImage(
  name: string,
  env: Record<string, string>,
  { args, mounts = {} }: { args?: string[]; mounts?: Record<string, string> } = {},
): Promise<Running> {
  const image = `acktrail/${name}:${VERSION}`;
  const config = await imageConfig(image);
  assert.equal(config.User, 'node', `${image} runs as the unprivileged user node`);
  const { stdout } = await run('buildah', ['from', '--pull=never', '--quiet', image]);
  const container = stdout.trim();
  containers.push(container);
  const command = [...(config.Entrypoint ?? []), ...(args ?? config.Cmd ?? [])];
  const child = spawn(
    'buildah',
    [
      'run',
      '--isolation',
      'chroot',
      '--user',
      config.User,
      ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      ...Object.entries(mounts).flatMap(([from, to]) => ['--volume', `${from}:${to}:ro`]),
      container,
      '--',
      ...command,
    ],
    // Its own process group: stopping it stops what buildah started.
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => output.push(String(c)));
  const r: Running = {
    child,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
  running.push(r);
  return r;
}

const up = async (r: Running, url: string) => {
  await waitFor(
    `${url} to answer`,
    async () => {
      if (r.child.exitCode !== null)
        throw new Error(`exited ${r.child.exitCode}: ${r.output.join('')}`);
      return (await fetch(url).catch(() => null))?.status === 200;
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; output: ${r.output.join('').slice(-2000)}`);
  });
};

let exporterUrl: string;

test('the exporter image migrates its store, is ready, and stores and serves a journey', async () => {
  // The listeners as the Kubernetes manifest sets them: the API, /metrics, and OTLP/HTTP on a
  // port of its own, read on the ingest thread (a worker file the image must hold).
  const [port, metricsPort, ingestPort] = [await freePort(), await freePort(), await freePort()];
  exporterUrl = `http://127.0.0.1:${port}`;
  const ingestUrl = `http://127.0.0.1:${ingestPort}`;
  const config = join(scratch, 'acktrail.yaml');
  writeFileSync(config, `rabbitmq:\n  vhosts: [${JSON.stringify(vhost!.name)}]\n`);
  const exporter = await runImage(
    'exporter',
    {
      ACKTRAIL_PORT: String(port),
      ACKTRAIL_METRICS_PORT: String(metricsPort),
      ACKTRAIL_INGEST_PORT: String(ingestPort),
      ACKTRAIL_LISTEN_HOST: '127.0.0.1',
      ACKTRAIL_DATABASE_URL: store!.url,
      ACKTRAIL_API_TOKEN: API_TOKEN,
      ACKTRAIL_INGEST_TOKEN: INGEST_TOKEN,
      ACKTRAIL_CONFIG: '/etc/acktrail/acktrail.yaml',
      RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:15672',
    },
    { mounts: { [config]: '/etc/acktrail/acktrail.yaml' } },
  );
  await up(exporter, `${exporterUrl}/readyz`);
  await up(exporter, `${ingestUrl}/readyz`);
  const client = new pg.Client({ connectionString: store!.url });
  await client.connect();
  try {
    const tables = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'journey_steps'",
    );
    assert.equal(tables.rows[0]!.n, 1, 'the image migrated its store on start');
  } finally {
    await client.end();
  }
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const { stdout: head } = await run('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT });
  assert.match(metrics, new RegExp(`acktrail_build_info\\{[^}]*revision="${head.trim()}"`));
  const eventId = `images-${Date.now()}`;
  const refused = await exportSpans(ingestUrl, journeySpans(eventId), 'protobuf');
  assert.notEqual(refused.code, 0, 'no ingest token, no write');
  const sent = await exportSpans(ingestUrl, journeySpans(eventId), 'protobuf', INGEST_TOKEN);
  assert.equal(sent.code, 0, String(sent.error));
  const res = await fetch(`${exporterUrl}/api/events/${eventId}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  assert.equal(res.status, 200);
  const journey = (await res.json()) as { timeline: { stage: string; service: string }[] };
  // Every span stored, in whatever order their equal timestamps sort.
  assert.deepEqual(journey.timeline.map((e) => e.service).sort(), [
    'orders-api',
    'orders-relay',
    'other-worker',
    'other-worker',
  ]);
});

test("SIGTERM to the exporter image's command (what a runtime sends its PID 1) drains it and exits 0", async () => {
  const port = await freePort();
  const exporter = await runImage(
    'exporter',
    {
      ACKTRAIL_PORT: String(port),
      ACKTRAIL_LISTEN_HOST: '127.0.0.1',
      RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:15672',
      ACKTRAIL_CONFIG: '/etc/acktrail/acktrail.yaml',
    },
    { mounts: { [join(scratch, 'acktrail.yaml')]: '/etc/acktrail/acktrail.yaml' } },
  );
  await up(exporter, `http://127.0.0.1:${port}/healthz`);
  // The image's command itself, not buildah nor its process group: buildah's descendant that runs
  // it (node, started again in place with acktrail's V8 settings: the same process).
  const { stdout } = await run('ps', ['-eo', 'pid=,ppid=,args=']);
  const procs = stdout
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const below = new Set([exporter.child.pid!]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs)
      if (below.has(p.ppid) && !below.has(p.pid)) grew = Boolean(below.add(p.pid));
  }
  const command = procs.find(
    (p) => below.has(p.pid) && /^(\S*\/)?node\s.*exporter\/dist\/main\.js/.test(p.args),
  );
  assert.ok(command, `the image's command under buildah: ${stdout}`);
  const exited = once(exporter.child, 'exit') as Promise<[number | null]>;
  process.kill(command.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const [code] = await Promise.race([
    exited,
    new Promise<[string]>((resolve) => {
      timer = setTimeout(() => {
        resolve(['still running 30 s after SIGTERM']);
      }, 30_000);
    }),
  ]);
  clearTimeout(timer);
  assert.equal(code, 0, exporter.output.join('').slice(-2000));
  const log = exporter.output.join('');
  assert.match(log, /"signal":"SIGTERM".*stopping: refusing new requests/);
  assert.match(log, /"msg":"stopped"/);
  assert.equal(
    await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null),
    null,
    'port freed',
  );
});

test('the dashboard image answers its sign-in page and serves the files the page links', async () => {
  const port = await freePort();
  const dashboard = await runImage('dashboard', {
    PORT: String(port),
    HOSTNAME: '127.0.0.1',
    DASHBOARD_SECRET,
    ACKTRAIL_API_URL: exporterUrl,
    ACKTRAIL_API_TOKEN: API_TOKEN,
  });
  const url = `http://127.0.0.1:${port}`;
  await up(dashboard, `${url}/signin`);
  const page = await (await fetch(`${url}/signin`)).text();
  assert.match(page, /<form/);
  const assets = [...page.matchAll(/\/_next\/static\/[^"']+\.(?:js|css)/g)].map((m) => m[0]);
  assert.ok(assets.length > 0, 'the page links its scripts');
  for (const a of new Set(assets)) assert.equal((await fetch(`${url}${a}`)).status, 200, a);
  // Without the secret, the overview sends the browser to sign in.
  const overview = await fetch(url, { redirect: 'manual' });
  assert.ok([302, 303, 307].includes(overview.status), `overview answered ${overview.status}`);
});

test('the pipeline image runs a role: migrate creates the outbox table', async () => {
  const migrate = await runImage(
    'pipeline',
    { DATABASE_URL: pipelineDb!.url, OTEL_SDK_DISABLED: 'true' },
    { args: ['migrate'] },
  );
  const [code] = (await once(migrate.child, 'exit')) as [number | null];
  assert.equal(code, 0, migrate.output.join(''));
  const client = new pg.Client({ connectionString: pipelineDb!.url });
  await client.connect();
  try {
    const r = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'outbox_events'",
    );
    assert.equal(r.rows[0]!.n, 1);
  } finally {
    await client.end();
  }
});
