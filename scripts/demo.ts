// `npm run demo [-- --pipeline orders|payments|both]`: a pipeline under a steady load with some
// failures mixed in, traced into the exporter's journey store, with Prometheus and the dashboard.
// orders (the default): the reference pipeline, @acktrail/instrument (5 % provider 503s, 2 %
// orders to an address the provider rejects). payments: examples/payments, stock OpenTelemetry
// only (poison messages, rejects into a DLX and discards). both: the two side by side, in one
// database, one exporter (the orders pipeline's settings plus the payments outbox table).
// Prints what runs where and the tokens; Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { migrate } from '@acktrail/orders-example';
import { migrate as migratePayments } from '@acktrail/payments-example';
import { ensureDatabases, ensureReader } from './demo/databases.js';
import { format, printWelcome } from './demo/output.js';
import { common, services } from './demo/services.js';
import { DATABASE_URL, env, withOrders, withPayments } from './demo/settings.js';

async function main(): Promise<void> {
  await ensureDatabases();
  const applied = [
    ...(withOrders ? await migrate(DATABASE_URL) : []),
    ...(withPayments ? await migratePayments(DATABASE_URL) : []),
  ];
  await ensureReader();
  console.log(
    `demo: database ${DATABASE_URL.replace(/:[^:@/]+@/, ':***@')} migrated (${applied.length} new migrations)`,
  );

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  for (const s of services) {
    const child = spawn(s.command ?? process.execPath, s.args, {
      env: { ...env, ...common, ...s.env },
      cwd: s.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own: Ctrl-C reaches the demo only, which stops the children in order.
      detached: true,
    });
    children.set(s.name, child);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        console.log(format(s.name, line));
      });
    }
    child.on('exit', (code, signal) => {
      children.delete(s.name);
      if (!stopping)
        console.log(`demo: ${s.name} exited (${signal ?? code}); the rest keeps running`);
    });
  }

  printWelcome(services);

  // The load first, then the pipeline (its last spans still reach the exporter), then what
  // watches it: the exporter, Prometheus and the dashboard.
  const LOAD = ['loadgen', 'pay-load'];
  const WATCHERS = ['exporter', 'prometheus', 'dashboard'];
  const stopped = (names: string[]) =>
    Promise.all(
      names.flatMap((name) => {
        const child = children.get(name);
        if (!child) return [];
        return [
          new Promise<void>((resolve) => {
            child.once('exit', () => {
              resolve();
            });
            child.kill('SIGTERM');
          }),
        ];
      }),
    );
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\ndemo: stopping the load, then the pipeline, then the exporter and dashboard');
    setTimeout(() => {
      for (const child of children.values()) child.kill('SIGKILL');
      process.exit(1);
    }, 15_000).unref();
    const pipeline = [...children.keys()].filter((n) => !LOAD.includes(n) && !WATCHERS.includes(n));
    void stopped(LOAD)
      .then(() => stopped(pipeline))
      .then(() => stopped(WATCHERS))
      .then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
