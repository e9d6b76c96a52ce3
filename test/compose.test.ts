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
import { REPO_ROOT } from '@acktrail/orders-example/testing';

const run = promisify(execFile);

interface Service {
  image?: string;
  build?: { context: string; target: string };
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  ports?: string[];
}

async function config(): Promise<{ services: Record<string, Service> }> {
  const { stdout } = await run('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
    cwd: REPO_ROOT,
  });
  return parse(stdout) as { services: Record<string, Service> };
}

test('docker-compose accepts the file', async () => {
  await run('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], { cwd: REPO_ROOT });
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

test('the Dockerfile: the built targets exist, run as node, build with the README and CI commands', async () => {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const targets = new Set([...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]));
  const { services } = await config();
  for (const [name, s] of Object.entries(services))
    if (s.build) assert.ok(targets.has(s.build.target), `${name}: target ${s.build.target}`);
  assert.match(dockerfile, /^USER node$/m);
  const runs = [...dockerfile.matchAll(/^RUN (.+)$/gm)].map((m) => m[1]!);
  assert.deepEqual(runs, [
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
