// The three-node RabbitMQ clusters of scripts/rabbitmq-cluster.sh, for the tests that need one:
// this machine's RabbitMQ 3.10, and RabbitMQ 4.0 as the official image ships it (in the chroot of
// scripts/rabbitmq4.sh, no statistics in the management API). Started (or found running) on first
// use; nodes stopped and started by the tests themselves.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './processes.js';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts/rabbitmq-cluster.sh');

export interface ClusterNode {
  n: 1 | 2 | 3;
  name: string;
  amqp: string;
  management: string;
  prometheus: string;
}

export interface Cluster {
  title: string;
  /** RabbitMQ 4 as shipped: the management API lists queues without their figures. */
  statistics: boolean;
  nodes: [ClusterNode, ClusterNode, ClusterNode];
  /** All three nodes running and joined; starts what is not. */
  ensure: () => Promise<string>;
  stopNode: (n: number) => Promise<string>;
  startNode: (n: number) => Promise<string>;
  /** rabbitmq-queues against node `n`. */
  queuesCli: (n: number, ...args: string[]) => Promise<string>;
  /** rabbitmqctl against node `n`. */
  ctl: (n: number, ...args: string[]) => Promise<string>;
}

function cluster(
  title: string,
  flags: string[],
  prefix: string,
  offset: number,
  statistics: boolean,
): Cluster {
  const script = async (...args: string[]) =>
    (await run('bash', [SCRIPT, ...flags, ...args], { timeout: 300_000 })).stdout;
  const nodes = ([1, 2, 3] as const).map((n) => ({
    n,
    name: `${prefix}${n}@localhost`,
    amqp: `amqp://guest:guest@127.0.0.1:${5680 + offset + n}`,
    management: `http://guest:guest@127.0.0.1:${15680 + offset + n}`,
    prometheus: `http://127.0.0.1:${15700 + offset + n}`,
  })) as Cluster['nodes'];
  return {
    title,
    statistics,
    nodes,
    ensure: () => script('ensure'),
    stopNode: (n) => script('stop', String(n)),
    startNode: (n) => script('start', String(n)),
    queuesCli: (n, ...args) => script('queues', String(n), ...args),
    ctl: (n, ...args) => script('ctl', String(n), ...args),
  };
}

/** rabbitmqctl's arguments for the broker's own figures of a vhost's queues (JSON). */
export const listQueuesArgs = (vhost: string) => [
  'list_queues',
  '-p',
  vhost,
  '--online',
  'name',
  'messages_ready',
  'messages_unacknowledged',
  'consumers',
  '--formatter',
  'json',
];

export const CLUSTERS: Cluster[] = [
  cluster('RabbitMQ 3.10', [], 'acktrail-c', 0, true),
  cluster('RabbitMQ 4.0 as shipped', ['--rabbitmq4'], 'acktrail-r4c', 13, false),
];
