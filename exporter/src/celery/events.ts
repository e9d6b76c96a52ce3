// Celery's event messages (exchange `celeryev`), as a worker or a client publishes them: one JSON
// object per message, or a list of them (routing key `task.multi`: the prefork worker buffers its
// task events). Anyone who can publish on that exchange can send anything, so an event gets the
// checks an OTLP span gets: a bounded message size before it is parsed, an id of the journey-id
// shape, a timestamp inside the retention window, every string bounded and scrubbed (no NUL, no
// lone surrogate). Anything else is set aside with a reason and counted, never fatal.
import { EVENT_ID_SHAPE } from '@acktrail/conventions';
import { bounded, scrub } from '../journeys/model/scrub.js';
import { SKIP_REASONS } from '../metrics/catalogue.js';

export const TASK_EVENTS = [
  'task-sent',
  'task-received',
  'task-started',
  'task-succeeded',
  'task-failed',
  'task-retried',
  'task-revoked',
  'task-rejected',
] as const;
export const WORKER_EVENTS = ['worker-online', 'worker-heartbeat', 'worker-offline'] as const;
export type TaskEventType = (typeof TASK_EVENTS)[number];
export type WorkerEventType = (typeof WORKER_EVENTS)[number];

/** The state a task event moves the task to (Celery's names, lower case). */
export const TASK_STATE = {
  'task-sent': 'sent',
  'task-received': 'received',
  'task-started': 'started',
  'task-succeeded': 'succeeded',
  'task-failed': 'failed',
  'task-retried': 'retried',
  'task-revoked': 'revoked',
  'task-rejected': 'rejected',
} as const satisfies Record<TaskEventType, string>;
export type TaskState = (typeof TASK_STATE)[TaskEventType];

export interface TaskEvent {
  kind: 'task';
  type: TaskEventType;
  uuid: string;
  /** Seconds since the epoch (UTC), as Celery sends it. */
  timestamp: number;
  hostname: string;
  clock: number | null;
  name: string | null;
  rootId: string | null;
  parentId: string | null;
  retries: number | null;
  eta: string | null;
  queue: string | null;
  runtime: number | null;
  exception: string | null;
  traceback: string | null;
}

export interface WorkerEvent {
  kind: 'worker';
  type: WorkerEventType;
  hostname: string;
  timestamp: number;
  /** Heartbeat period in seconds. */
  freq: number;
  active: number | null;
}

/** Why an event was set aside (acktrail_celery_events_skipped_total{reason}, the catalogue's). */
export type SkipReason = (typeof SKIP_REASONS)[number];

export type Parsed = TaskEvent | WorkerEvent | { kind: 'skipped'; reason: SkipReason };

export interface EventLimits {
  /** Oldest and newest accepted timestamp, seconds since the epoch. */
  fromS: number;
  toS: number;
  /** Largest message body parsed; a larger one is skipped unread. */
  maxMessageBytes: number;
}

const DAY_S = 86_400;

/**
 * The events read now: none older than `backDays` (the journeys' retention) nor more than a day
 * ahead of this clock, none larger than `maxMessageBytes`.
 */
export function eventLimits(maxMessageBytes: number, backDays: number): EventLimits {
  const now = Date.now() / 1000;
  return { fromS: now - backDays * DAY_S, toS: now + DAY_S, maxMessageBytes };
}

const TASK_SET = new Set<string>(TASK_EVENTS);
const WORKER_SET = new Set<string>(WORKER_EVENTS);
/** The traceback's tail is all its summary reads (the last frame and the exception line). */
const TRACEBACK_TAIL = 16_384;

const raw = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
/** A non-empty string, bounded and scrubbed like a span attribute. */
const str = (v: unknown) => {
  const s = raw(v);
  return s === null ? null : scrub(s);
};
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function parseEvent(input: unknown, limits: EventLimits): Parsed {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { kind: 'skipped', reason: 'malformed' };
  const e = input as Record<string, unknown>;
  const type = raw(e.type);
  const timestamp = num(e.timestamp);
  const hostname = str(e.hostname) ?? 'unknown';
  if (type === null || timestamp === null) return { kind: 'skipped', reason: 'malformed' };
  if (!TASK_SET.has(type) && !WORKER_SET.has(type))
    return { kind: 'skipped', reason: 'unknown_type' };
  if (timestamp < limits.fromS || timestamp > limits.toS)
    return { kind: 'skipped', reason: 'out_of_window' };
  if (WORKER_SET.has(type))
    return {
      kind: 'worker',
      type: type as WorkerEventType,
      hostname,
      timestamp,
      // A period that is no number of seconds would make the worker never (or always) alive.
      freq: Math.min(3600, Math.max(0.1, num(e.freq) ?? 2)),
      active: num(e.active),
    };
  const id = raw(e.uuid);
  if (id === null) return { kind: 'skipped', reason: 'malformed' };
  const uuid = bounded(id, 128);
  if (!EVENT_ID_SHAPE.test(uuid)) return { kind: 'skipped', reason: 'invalid_id' };
  const traceback = raw(e.traceback);
  return {
    kind: 'task',
    type: type as TaskEventType,
    uuid,
    timestamp,
    hostname,
    clock: num(e.clock),
    name: str(e.name),
    rootId: str(e.root_id),
    parentId: str(e.parent_id),
    retries: num(e.retries),
    eta: str(e.eta),
    queue: str(e.queue) ?? str(e.routing_key),
    runtime: num(e.runtime) === null ? null : Math.max(0, num(e.runtime)!),
    exception: str(e.exception),
    traceback: traceback === null ? null : traceback.slice(-TRACEBACK_TAIL),
  };
}

/** The events of one message body: a JSON object, or a list of them. */
export function parseBody(body: Buffer, limits: EventLimits): Parsed[] {
  if (body.length > limits.maxMessageBytes) return [{ kind: 'skipped', reason: 'too_large' }];
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return [{ kind: 'skipped', reason: 'malformed' }];
  }
  return (Array.isArray(json) ? json : [json]).map((e) => parseEvent(e, limits));
}

/**
 * A traceback's summary: the exception line, and where it was raised (the last frame's file,
 * line and function). Arguments and locals never appear in it.
 */
export function tracebackSummary(traceback: string | null): string | null {
  if (!traceback) return null;
  // Callers pass at most the last TRACEBACK_TAIL characters; a frame cut at the front is fine.
  const lines = traceback.trimEnd().split('\n');
  const last = lines.at(-1)?.trim() ?? '';
  const frames = lines.filter((l) => /^\s*File "/.test(l));
  const where =
    frames
      .at(-1)
      ?.trim()
      .replace(/^File /, '') ?? '';
  return where ? `${last} (at ${where}; ${frames.length} frames)` : last;
}
