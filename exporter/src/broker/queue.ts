// A queue as the broker model knows it: its key (vhost and name) and its depth.

/** One key per queue across vhosts: the vhost, a NUL (in no name), the queue's name. */
export const queueKey = (vhost: string, queue: string) => `${vhost}\u0000${queue}`;

export interface QueueDepth {
  vhost: string;
  queue: string;
  ready: number;
  unacked: number;
  consumers: number;
}

/** MassTransit's fault transports, `<queue>_error` and `<queue>_skipped`: group 1 is the queue. */
export const FAULT_QUEUE = /^(.+)_(error|skipped)$/;
