// The compose stack as far as a machine without a Docker engine can check it: Debian's
// docker-compose accepts the file; images are pinned; every condition a service waits on has a
// health check or a one-shot job behind it; the Dockerfile's targets exist, run as a non-root
// user, and build with the same commands as the README and CI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import pg from 'pg';
import { REPO_ROOT, RABBITMQ_NEWEST, management } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { jsonBody } from '@acktrail/exporter/testing/otlp';

const run = promisify(execFile);

interface Service {
  image?: string;
  build?: { context: string; target: string };
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  ports?: string[];
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
}

/** The secrets the stack needs from whoever starts it (it has no defaults). */
const SECRETS = {
  ACKTRAIL_API_TOKEN: 'a'.repeat(48),
  ACKTRAIL_INGEST_TOKEN: '1'.repeat(48),
  DASHBOARD_SECRET: 'b'.repeat(48),
  POSTGRES_PASSWORD: 'c'.repeat(48),
  ACKTRAIL_STORE_PASSWORD: 'd'.repeat(48),
  ACKTRAIL_READER_PASSWORD: 'e'.repeat(48),
  RABBITMQ_PASSWORD: 'f'.repeat(48),
  GRAFANA_ADMIN_PASSWORD: '0'.repeat(48),
};

function compose(args: string[], env: Record<string, string> = SECRETS) {
  return run('docker-compose', ['-f', 'docker-compose.yml', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...env },
  });
}

async function config(): Promise<{ services: Record<string, Service> }> {
  const { stdout } = await compose(['config']);
  return parse(stdout) as { services: Record<string, Service> };
}

test('docker-compose accepts the file', async () => {
  await compose(['config', '-q']);
});

test('without any one of its secrets it stops at once, saying what to set', async () => {
  for (const missing of Object.keys(SECRETS)) {
    const env = { ...SECRETS, [missing]: '' };
    await assert.rejects(compose(['config', '-q'], env), (err: { stderr: string }) => {
      assert.match(err.stderr, new RegExp(`set ${missing}`));
      return true;
    });
  }
  const { stdout } = await compose(['config']);
  assert.doesNotMatch(stdout, /change-me/, 'no example value left anywhere');
  // No fixed credential: every password in the resolved file is one of the variables'.
  for (const url of stdout.match(/[a-z]+:\/\/[^\s'"]+/g) ?? []) {
    const password = new URL(url).password;
    if (password) assert.ok(Object.values(SECRETS).includes(password), `fixed password in ${url}`);
  }
  const { services } = parse(stdout) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  const grafana = services.grafana!.environment!;
  assert.equal(grafana.GF_AUTH_ANONYMOUS_ENABLED, 'false');
  assert.equal(grafana.GF_SECURITY_ADMIN_PASSWORD, SECRETS.GRAFANA_ADMIN_PASSWORD);
  const postgres = services.postgres!.environment!;
  assert.equal(postgres.POSTGRES_PASSWORD, SECRETS.POSTGRES_PASSWORD);
  assert.equal(services.rabbitmq!.environment!.RABBITMQ_DEFAULT_PASS, SECRETS.RABBITMQ_PASSWORD);
});

test('the stack has every part the issue lists, images pinned, ports on loopback', async () => {
  const { services } = await config();
  for (const name of [
    'rabbitmq',
    'postgres',
    'prometheus',
    'grafana',
    'exporter',
    'dashboard',
    'provider',
    'api',
    'relay',
    'worker',
    'loadgen',
  ])
    assert.ok(services[name], `service ${name}`);
  for (const [name, s] of Object.entries(services)) {
    assert.match(s.image ?? '', /:v?\d+(\.\d+)+/, `${name}: image pinned by version`);
    for (const port of s.ports ?? []) assert.match(port, /^127\.0\.0\.1:/, `${name}: ${port}`);
  }
});

test('RabbitMQ is pinned to the version the collector tests run (scripts/rabbitmq4.sh --newest)', async () => {
  const { services } = await config();
  assert.equal(services.rabbitmq!.image, `rabbitmq:${RABBITMQ_NEWEST.version}-management`);
  const { rabbitmq_version } = (await management(
    '/overview?columns=rabbitmq_version',
    {},
    RABBITMQ_NEWEST.management,
  )) as { rabbitmq_version: string };
  assert.equal(rabbitmq_version, RABBITMQ_NEWEST.version, 'the broker the tests run');
});

test('every service waited on is healthy-checked or a one-shot job', async () => {
  const { services } = await config();
  for (const [name, s] of Object.entries(services))
    for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
      const target = services[dep];
      assert.ok(target, `${name} waits on unknown ${dep}`);
      if (condition === 'service_healthy') assert.ok(target.healthcheck, `${dep} health check`);
      else {
        assert.equal(condition, 'service_completed_successfully', `${name} -> ${dep}`);
        assert.equal(target.restart, 'no', `${dep} runs once`);
      }
    }
});

/** The Dockerfile's stages: name -> its lines. */
function stages(dockerfile: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of dockerfile.split('\n')) {
    const from = /^FROM \S+ AS (\S+)$/.exec(line);
    if (from) out.set(from[1]!, (current = []));
    else current.push(line);
  }
  return out;
}

test('the Dockerfile: the built targets exist, run as node, build with the README and CI commands', async () => {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const targets = stages(dockerfile);
  const { services } = await config();
  for (const [name, s] of Object.entries(services))
    if (s.build) assert.ok(targets.has(s.build.target), `${name}: target ${s.build.target}`);
  const runs = [...dockerfile.matchAll(/^RUN (.+)$/gm)].map((m) => m[1]!);
  assert.deepEqual(runs.slice(0, 2), [
    'npm ci --no-audit --no-fund',
    'npm run build -w exporter && npm run build -w dashboard',
  ]);
  const setup = readFileSync(join(REPO_ROOT, 'scripts/setup.sh'), 'utf8');
  assert.match(setup, /npm ci --no-audit --no-fund/);
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.match(pkg.scripts.test!, /npm run build -w dashboard/);
  assert.match(pkg.scripts.exporter!, /npm run build -w exporter/);
});

test("acktrail's containers: read-only, no capabilities, no new privileges", async () => {
  const { services } = await config();
  const ours = Object.entries(services).filter(([, s]) => s.build);
  assert.ok(ours.length >= 3);
  for (const [name, s] of ours) {
    assert.equal(s.read_only, true, `${name}: read_only`);
    assert.deepEqual(s.cap_drop, ['ALL'], `${name}: cap_drop`);
    assert.deepEqual(s.security_opt, ['no-new-privileges:true'], `${name}: security_opt`);
  }
});

test('each runtime image holds its production dependencies only, and runs as node', () => {
  const targets = stages(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  for (const [image, workspace] of [
    ['exporter', 'exporter'],
    ['pipeline', 'examples/orders'],
  ] as const) {
    const deps = targets.get(`${image}-deps`)!.join('\n');
    assert.match(
      deps,
      new RegExp(`^RUN npm ci --omit=dev .*-w ${workspace} --include-workspace-root=false$`, 'm'),
    );
    const lines = targets.get(image)!;
    assert.ok(lines.includes('USER node'), `${image} runs as node`);
    // Its files belong to root: the user it runs as cannot rewrite its own code.
    for (const l of lines.filter((c) => c.startsWith('COPY')))
      assert.doesNotMatch(l, /--chown/, `${image}: ${l}`);
    const copies = lines.filter((l) => l.startsWith('COPY --from='));
    assert.ok(copies.some((l) => l.includes(`--from=${image}-deps `) && l.endsWith(' /app /app')));
    // From the full install or the build, only built files: never its node_modules.
    for (const l of copies.filter((c) => /--from=(deps|build) /.test(c)))
      assert.doesNotMatch(l, / \/app \/app$|node_modules/, `${image}: ${l}`);
  }
  // The dashboard: Next's standalone output alone, which holds the files the server uses.
  const dashboard = targets.get('dashboard')!;
  assert.ok(dashboard.includes('USER node'), 'dashboard runs as node');
  assert.deepEqual(
    dashboard.filter((l) => l.startsWith('COPY')),
    ['COPY --from=build /app/dashboard/.next/standalone ./'],
  );
  assert.ok(dashboard.includes('CMD ["node", "dashboard/server.js"]'));
});

test("the journey store runs as the compose stack's own role, not a superuser", async () => {
  // docker/postgres/init.sql as the image runs it (as a superuser), with names of this test's.
  const id = `t${Date.now().toString(36)}`;
  const names: [RegExp, string][] = [
    [/acktrail_store/g, `${id}_store`],
    [/acktrail_journeys/g, `${id}_journeys`],
    [/acktrail_reader/g, `${id}_reader`],
    [/DATABASE orders/g, `DATABASE ${id}_orders`],
  ];
  let sql = readFileSync(join(REPO_ROOT, 'docker/postgres/init.sql'), 'utf8');
  for (const [from, to] of names) sql = sql.replace(from, to);
  // As docker/postgres/init.sh runs it: the roles' passwords as psql variables.
  const variables = '-v store_password=acktrail_store -v reader_password=acktrail_reader';
  const superuser = (script: string, db = 'postgres') =>
    new Promise<void>((resolve, reject) => {
      const child = execFile(
        'su',
        ['postgres', '-c', `psql -v ON_ERROR_STOP=1 ${variables} -q -d ${db}`],
        (err) => {
          if (err) reject(new Error(`psql as postgres failed: ${err.message}`, { cause: err }));
          else resolve();
        },
      );
      child.stdin!.end(script);
    });
  await superuser(`CREATE DATABASE ${id}_orders;`);
  // As the image does: in POSTGRES_DB (the pipeline's database).
  await superuser(sql, `${id}_orders`);
  const store = `postgres://${id}_store:acktrail_store@127.0.0.1:5432/${id}_journeys`;
  const exporter = await TestExporter.start(
    { ACKTRAIL_DATABASE_URL: store },
    { rabbitmq: { enabled: false } },
  );
  try {
    await exporter.exporter.ready;
    const res = await fetch(`${exporter.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: jsonBody(1, 1, 'ev-store-role'),
    });
    assert.equal(res.status, 200, 'migrated, partitioned and written as the store role');
    const role = new pg.Client({ connectionString: store });
    await role.connect();
    try {
      const r = await role.query<{ rolsuper: boolean; rolcreaterole: boolean }>(
        'SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user',
      );
      assert.deepEqual(r.rows[0], { rolsuper: false, rolcreaterole: false });
    } finally {
      await role.end();
    }
  } finally {
    await exporter.close();
    for (const statement of [
      `DROP DATABASE IF EXISTS ${id}_journeys WITH (FORCE)`,
      `DROP DATABASE IF EXISTS ${id}_orders WITH (FORCE)`,
      `DROP ROLE IF EXISTS ${id}_store`,
      `DROP ROLE IF EXISTS ${id}_reader`,
    ])
      await superuser(statement);
  }
});
