// The three-node RabbitMQ cluster of scripts/rabbitmq-cluster.sh, for the tests that need one:
// started (or found running) on first use, nodes stopped and started by the tests themselves.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@acktrail/orders-example/testing';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts/rabbitmq-cluster.sh');

export interface ClusterNode {
  n: 1 | 2 | 3;
  name: string;
  amqp: string;
  management: string;
  prometheus: string;
}

export const CLUSTER: ClusterNode[] = ([1, 2, 3] as const).map((n) => ({
  n,
  name: `acktrail-c${n}@localhost`,
  amqp: `amqp://guest:guest@127.0.0.1:568${n}`,
  management: `http://guest:guest@127.0.0.1:1568${n}`,
  prometheus: `http://127.0.0.1:1570${n}`,
}));

async function cluster(...args: string[]): Promise<string> {
  const { stdout } = await run('bash', [SCRIPT, ...args], { timeout: 300_000 });
  return stdout;
}

/** All three nodes running and joined; starts what is not. */
export const ensureCluster = () => cluster('ensure');
export const stopNode = (n: number) => cluster('stop', String(n));
export const startNode = (n: number) => cluster('start', String(n));
/** rabbitmq-queues against node `n`. */
export const queuesCli = (n: number, ...args: string[]) => cluster('queues', String(n), ...args);
