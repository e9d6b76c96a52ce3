// The runner's rules with collectors written for the test: failures and timeouts never fail a
// scrape, concurrent scrapes share one collection, expensive collectors refresh in the background.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gauge, Registry } from 'prom-client';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import type { Collector } from './collector.js';
import { CollectorRunner } from './runner.js';

function logSink() {
  const lines: { msg: string; collector?: string; fix?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as { msg: string });
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

async function value(
  registry: Registry,
  name: string,
  collector: string,
): Promise<number | undefined> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels.collector === collector)?.value;
}

class Scripted implements Collector {
  runs = 0;
  behaviour: 'ok' | 'fail' | 'hang' = 'ok';
  readonly gauge: Gauge;
  constructor(
    readonly name: string,
    registry: Registry,
    readonly timeoutMs = 1000,
    readonly minIntervalMs?: number,
  ) {
    this.gauge = new Gauge({ name: `test_${name}`, help: 'x', registers: [registry] });
  }
  async collect(signal: AbortSignal): Promise<() => void> {
    this.runs++;
    const run = this.runs;
    if (this.behaviour === 'fail') throw new Error(`${this.name} broke`);
    if (this.behaviour === 'hang')
      await new Promise((resolve) => {
        signal.addEventListener('abort', resolve);
      });
    await Promise.resolve();
    return () => {
      this.gauge.set(run);
    };
  }
  clear() {
    this.gauge.reset();
  }
}

test('a failing collector sets success 0, keeps the others, logs once per change', async () => {
  const registry = new Registry();
  const { log, lines } = logSink();
  const good = new Scripted('good', registry);
  const bad = new Scripted('bad', registry);
  const runner = new CollectorRunner([good, bad], registry, log);
  bad.behaviour = 'fail';
  for (let i = 0; i < 3; i++) await runner.collect();
  assert.equal(await value(registry, 'acktrail_collector_success', 'bad'), 0);
  assert.equal(await value(registry, 'acktrail_collector_success', 'good'), 1);
  assert.equal((await registry.getSingleMetric('test_good')?.get())?.values[0]?.value, 3);
  assert.equal(lines.filter((l) => l.msg === 'collector failing').length, 1);
  // The line says where the fix is: the doctor, which checks every source.
  assert.match(String(lines.find((l) => l.msg === 'collector failing')?.fix), /acktrail doctor/);

  bad.behaviour = 'ok';
  await runner.collect();
  assert.equal(await value(registry, 'acktrail_collector_success', 'bad'), 1);
  assert.deepEqual(
    lines.map((l) => [l.msg, l.collector]),
    [
      ['collector failing', 'bad'],
      ['collector recovered', 'bad'],
    ],
  );
});

test('a collector that hangs times out, is cleared and never applies late', async () => {
  const registry = new Registry();
  const slow = new Scripted('slow', registry, 50);
  const runner = new CollectorRunner([slow], registry, logSink().log);
  await runner.collect();
  assert.equal((await registry.getSingleMetric('test_slow')?.get())?.values[0]?.value, 1);
  slow.behaviour = 'hang';
  await runner.collect();
  assert.equal(await value(registry, 'acktrail_collector_success', 'slow'), 0);
  // Cleared (an unlabelled gauge reads 0 after a reset), and the abandoned run's value (2) never lands.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual((await registry.getSingleMetric('test_slow')?.get())?.values, [
    { value: 0, labels: {} },
  ]);
  assert.match(runner.status()[0]!.error ?? '', /timed out after 50 ms/);
});

test('concurrent scrapes share one collection', async () => {
  const registry = new Registry();
  const c = new Scripted('shared', registry);
  const runner = new CollectorRunner([c], registry, logSink().log);
  await Promise.all([runner.collect(), runner.collect(), runner.collect()]);
  assert.equal(c.runs, 1);
});

test('an expensive collector serves its last data and refreshes in the background', async () => {
  const registry = new Registry();
  let now = 1_000_000;
  const c = new Scripted('expensive', registry, 1000, 60_000);
  const runner = new CollectorRunner([c], registry, logSink().log, () => now);
  await runner.collect();
  await runner.collect();
  assert.equal(c.runs, 1, 'within the interval: no new run');
  now += 30_000;
  await runner.collect();
  assert.equal(await value(registry, 'acktrail_collector_data_age_seconds', 'expensive'), 30);
  now += 31_000;
  c.behaviour = 'hang';
  await runner.collect(); // must not wait for the hanging refresh
  assert.equal(c.runs, 2);
  assert.equal((await registry.getSingleMetric('test_expensive')?.get())?.values[0]?.value, 1);
});
