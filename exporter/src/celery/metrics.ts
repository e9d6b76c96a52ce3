// acktrail_celery_* (docs/metrics.md, "Celery"): task state transitions, runtime and queue wait
// by task name and queue, workers, queue lengths, and the events themselves. Labels are bounded
// per label and per series: task names, queues, task x queue pairs and workers each have a cap,
// past which an observation goes to "other" (or, for a worker, is not tracked) and is counted in
// acktrail_label_overflow_total; a worker's label goes away once it has been offline for
// `workerExpirySeconds`; no task id ever becomes a label.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { BoundedLabel, OTHER } from '../labels.js';
import { TASK_STATE, type TaskEvent, type WorkerEvent } from './events.js';
import { SKIP_REASONS, counter, gauge, histogram } from '../metrics/catalogue.js';

/** Tasks remembered between their events (name, queue, when sent and received). */
const MAX_TASKS = 200_000;
/** How long a final event of a task not yet named waits for the task's name (see `held`). */
export const HOLD_MS = 5_000;
/** Final events held at once; past it one is counted at once, with what is known. */
const MAX_HELD = 10_000;
const FINAL = new Set(['task-succeeded', 'task-failed', 'task-revoked', 'task-rejected']);

interface TaskInfo {
  name: string | null;
  queue: string | null;
  rootId: string | null;
  sentAt: number | null;
  receivedAt: number | null;
  /** Started, and not ended or retried since. */
  running: boolean;
}

interface WorkerState {
  lastSeen: number;
  freq: number;
  offline: boolean;
}

export interface CeleryMetricsOptions {
  maxTaskNames: number;
  maxQueues: number;
  /** Distinct (task, queue) label pairs; past it a pair's series is {task="other",queue="other"}. */
  maxTaskQueuePairs: number;
  /** Workers tracked at once (a label each); more are counted as overflow, not tracked. */
  maxWorkers: number;
  workerExpirySeconds: number;
}

export class CeleryMetrics {
  readonly events: Counter;
  readonly skipped: Counter;
  private readonly tasks: Counter;
  private readonly runtime: Histogram;
  private readonly queueWait: Histogram;
  private readonly workersUp: Gauge;
  private readonly workerUp: Gauge;
  private readonly workerActive: Gauge;
  readonly queueLength: Gauge;
  readonly unacked: Gauge;
  readonly unackedOldestAge: Gauge;
  readonly visibilityTimeout: Gauge;
  readonly reconnects: Counter;
  readonly redeliveries: Counter;
  private readonly lastReceived: Gauge;
  private readonly names: BoundedLabel;
  private readonly queues: BoundedLabel;
  private readonly pairs: BoundedLabel;
  private readonly workerLabels: BoundedLabel;
  private readonly info = new Map<string, TaskInfo>();
  /**
   * Final events of tasks whose name is not known yet, oldest first. A worker that discards a
   * task revoked before it arrived sends task-revoked with the task's id alone, and the sender's
   * task-sent (its name and queue) comes over a connection of its own: on a Redis broker it can
   * arrive after. Such an event is counted when the task's next event names it, or after HOLD_MS
   * (at the next event or scrape) with what is known.
   */
  private readonly held = new Map<string, { event: TaskEvent; at: number }>();
  private readonly workers = new Map<string, WorkerState>();
  /**
   * Label pairs whose `failed` series exists: it is born at 0 with the pair's first event, so that
   * increase() and rate() see the first failure (a series born at 1 shows no increase).
   */
  private readonly born = new Set<string>();

  constructor(
    registry: Registry,
    private readonly opts: CeleryMetricsOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.names = new BoundedLabel(opts.maxTaskNames, { registry, label: 'celery_task' });
    this.queues = new BoundedLabel(opts.maxQueues, { registry, label: 'celery_queue' });
    this.pairs = new BoundedLabel(opts.maxTaskQueuePairs, { registry, label: 'celery_task_queue' });
    this.workerLabels = new BoundedLabel(opts.maxWorkers, { registry, label: 'celery_worker' });
    const registers = [registry];
    this.events = new Counter({ ...counter('acktrail_celery_events_total'), registers });
    this.skipped = new Counter({ ...counter('acktrail_celery_events_skipped_total'), registers });
    for (const reason of SKIP_REASONS) this.skipped.inc({ reason }, 0);
    this.tasks = new Counter({
      ...counter('acktrail_celery_tasks_total'),
      collect: () => {
        this.releaseHeld();
      },
      registers,
    });
    this.runtime = new Histogram({
      ...histogram('acktrail_celery_task_runtime_seconds'),
      registers,
    });
    this.queueWait = new Histogram({
      ...histogram('acktrail_celery_task_queue_wait_seconds'),
      registers,
    });
    const workers = this.workers;
    const alive = (w: WorkerState) => !w.offline && this.now() - w.lastSeen <= 2 * w.freq * 1000;
    this.workersUp = new Gauge({
      ...gauge('acktrail_celery_workers_online'),
      registers,
      collect: () => {
        this.expireWorkers();
        this.workersUp.set([...workers.values()].filter(alive).length);
      },
    });
    this.workerUp = new Gauge({
      ...gauge('acktrail_celery_worker_up'),
      registers,
      collect: () => {
        this.expireWorkers();
        for (const [name, w] of workers) this.workerUp.set({ worker: name }, alive(w) ? 1 : 0);
      },
    });
    this.workerActive = new Gauge({ ...gauge('acktrail_celery_worker_active_tasks'), registers });
    this.queueLength = new Gauge({ ...gauge('acktrail_celery_queue_length'), registers });
    this.unacked = new Gauge({ ...gauge('acktrail_celery_unacked_tasks'), registers });
    this.unackedOldestAge = new Gauge({
      ...gauge('acktrail_celery_unacked_oldest_age_seconds'),
      registers,
    });
    this.visibilityTimeout = new Gauge({
      ...gauge('acktrail_celery_visibility_timeout_seconds'),
      registers,
    });
    this.reconnects = new Counter({
      ...counter('acktrail_celery_broker_reconnects_total'),
      registers,
    });
    this.redeliveries = new Counter({
      ...counter('acktrail_celery_task_redeliveries_total'),
      registers,
    });
    this.lastReceived = new Gauge({
      ...gauge('acktrail_celery_events_last_received_timestamp_seconds'),
      registers,
    });
    this.lastReceived.set(0);
  }

  /** An event message arrived now. */
  received(nowMs: number): void {
    this.lastReceived.set(nowMs / 1000);
  }

  /** The task's remembered name, queue and workflow root (from its earlier events). */
  taskInfo(uuid: string): TaskInfo | undefined {
    return this.info.get(uuid);
  }

  task(e: TaskEvent): void {
    this.releaseHeld();
    if (
      FINAL.has(e.type) &&
      e.name === null &&
      !this.info.get(e.uuid)?.name &&
      !this.held.has(e.uuid) &&
      this.held.size < MAX_HELD
    ) {
      this.held.set(e.uuid, { event: e, at: this.now() });
      return;
    }
    this.count(e);
    const held = this.held.get(e.uuid);
    if (held) {
      this.held.delete(e.uuid);
      this.count(held.event);
    }
  }

  /** Counts the held final events that have waited HOLD_MS for their task's name. */
  private releaseHeld(): void {
    const before = this.now() - HOLD_MS;
    for (const [uuid, { event, at }] of this.held) {
      if (at > before) break;
      this.held.delete(uuid);
      this.count(event);
    }
  }

  private count(e: TaskEvent): void {
    let info = this.info.get(e.uuid);
    if (!info) {
      if (this.info.size >= MAX_TASKS) this.info.delete(this.info.keys().next().value!);
      info = {
        name: null,
        queue: null,
        rootId: null,
        sentAt: null,
        receivedAt: null,
        running: false,
      };
      this.info.set(e.uuid, info);
    }
    info.name = e.name ?? info.name;
    info.queue = e.queue ?? info.queue;
    info.rootId = e.rootId ?? info.rootId;
    if (e.type === 'task-sent') info.sentAt = e.timestamp;
    if (e.type === 'task-received') info.receivedAt = e.timestamp;
    const labels = this.labels(info);
    const pair = `${labels.task}\u0000${labels.queue}`;
    if (!this.born.has(pair)) {
      // Bounded as the pairs are: past maxTaskQueuePairs every pair is other/other.
      this.born.add(pair);
      this.tasks.inc({ ...labels, state: TASK_STATE['task-failed'] }, 0);
    }
    this.tasks.inc({ ...labels, state: TASK_STATE[e.type] });
    if (e.type === 'task-started') {
      if (info.running) this.redeliveries.inc(labels);
      info.running = true;
      const from = info.sentAt ?? info.receivedAt;
      if (from !== null) this.queueWait.observe(labels, Math.max(0, e.timestamp - from));
    }
    if (e.type === 'task-retried') info.running = false;
    if (e.type === 'task-succeeded' && e.runtime !== null) this.runtime.observe(labels, e.runtime);
    // A retried task comes back with a new task-sent/received; the others are final.
    if (FINAL.has(e.type)) this.info.delete(e.uuid);
  }

  /** The task's series: its name and queue, each bounded, and the pair bounded too. */
  private labels(info: TaskInfo): { task: string; queue: string } {
    const task = this.names.of(info.name);
    const queue = this.queues.of(info.queue);
    return this.pairs.admits(`${task}\u0000${queue}`)
      ? { task, queue }
      : { task: OTHER, queue: OTHER };
  }

  worker(e: WorkerEvent): void {
    const offline = e.type === 'worker-offline';
    // Known workers always update; a new one only while there is room for its label.
    if (!this.workers.has(e.hostname)) {
      this.expireWorkers();
      if (!this.workerLabels.admits(e.hostname)) return;
    }
    this.workers.set(e.hostname, { lastSeen: this.now(), freq: e.freq, offline });
    if (e.active !== null) this.workerActive.set({ worker: e.hostname }, e.active);
  }

  private expireWorkers(): void {
    const horizon = this.now() - this.opts.workerExpirySeconds * 1000;
    for (const [name, w] of this.workers)
      if (w.lastSeen < horizon) {
        this.workers.delete(name);
        this.workerLabels.forget(name);
        this.workerUp.remove({ worker: name });
        this.workerActive.remove({ worker: name });
      }
  }
}
