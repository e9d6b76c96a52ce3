// `npm run demo [-- --pipeline orders|payments|both]`: a pipeline under a steady load with some
// failures mixed in, traced into the exporter's journey store, with Prometheus and the dashboard.
// orders (the default): the reference pipeline, @acktrail/instrument (5 % provider 503s, 2 %
// orders to an address the provider rejects). payments: examples/payments, stock OpenTelemetry
// only (poison messages, rejects into a DLX and discards). both: the two side by side, in one
// database, one exporter (the orders pipeline's settings plus the payments outbox table).
// Prints what runs where and the tokens; a part that exits is started again (demo/supervise.ts);
// Ctrl-C stops everything.
import { migrate } from '@acktrail/orders-example';
import { migrate as migratePayments } from '@acktrail/payments-example';
import { ensureDatabases, ensureReader } from './demo/databases.js';
import { printWelcome } from './demo/output.js';
import { common, services } from './demo/services.js';
import { Supervisor } from './demo/supervise.js';
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

  const supervisor = new Supervisor({ ...env, ...common });
  for (const s of services) supervisor.run(s);
  const { children } = supervisor;

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
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    supervisor.stop();
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
