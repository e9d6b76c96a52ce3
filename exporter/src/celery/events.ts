// Celery's event messages (exchange `celeryev`), as a worker or a client publishes them: one JSON
// object per message, or a list of them (routing key `task.multi`: the prefork worker buffers its
// task events). Anything else is counted and skipped, never fatal.
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

export type Parsed =
  TaskEvent | WorkerEvent | { kind: 'skipped'; reason: 'malformed' | 'unknown_type' };

const TASK_SET = new Set<string>(TASK_EVENTS);
const WORKER_SET = new Set<string>(WORKER_EVENTS);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function parseEvent(raw: unknown): Parsed {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { kind: 'skipped', reason: 'malformed' };
  const e = raw as Record<string, unknown>;
  const type = str(e.type);
  const timestamp = num(e.timestamp);
  const hostname = str(e.hostname) ?? 'unknown';
  if (type === null || timestamp === null) return { kind: 'skipped', reason: 'malformed' };
  if (WORKER_SET.has(type))
    return {
      kind: 'worker',
      type: type as WorkerEventType,
      hostname,
      timestamp,
      freq: num(e.freq) ?? 2,
      active: num(e.active),
    };
  if (!TASK_SET.has(type)) return { kind: 'skipped', reason: 'unknown_type' };
  const uuid = str(e.uuid);
  if (uuid === null) return { kind: 'skipped', reason: 'malformed' };
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
    runtime: num(e.runtime),
    exception: str(e.exception),
    traceback: str(e.traceback),
  };
}

/** The events of one message body: a JSON object, or a list of them. */
export function parseBody(body: Buffer): Parsed[] {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return [{ kind: 'skipped', reason: 'malformed' }];
  }
  return (Array.isArray(json) ? json : [json]).map(parseEvent);
}

/**
 * A traceback's summary: the exception line, and where it was raised (the last frame's file,
 * line and function). Arguments and locals never appear in it.
 */
export function tracebackSummary(traceback: string | null): string | null {
  if (!traceback) return null;
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
