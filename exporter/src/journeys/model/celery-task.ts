// A Celery task as the journey model reads it, from the steps of its events (celery/steps.ts): its states
// with times, retries with their countdowns and exceptions, the final exception with a traceback
// summary, the worker, and its place in a workflow (chain, group, chord) through root_id and
// parent_id: the task that sent it, the tasks it sent, and the other tasks of the same workflow.
import type { AttributeValue } from '@acktrail/conventions';
import type { StoredRow } from './steps.js';

/** Celery's state names, as its result backend and Flower show them. */
const STATE = {
  'celery.sent': 'PENDING',
  'celery.received': 'RECEIVED',
  'celery.started': 'STARTED',
  'celery.succeeded': 'SUCCESS',
  'celery.failed': 'FAILURE',
  'celery.retried': 'RETRY',
  'celery.revoked': 'REVOKED',
  'celery.rejected': 'REJECTED',
} as const satisfies Record<string, string>;
export type CeleryState = (typeof STATE)[keyof typeof STATE];
const FINAL = new Set<string>(['SUCCESS', 'FAILURE', 'REVOKED', 'REJECTED']);

export const isCeleryStep = (s: { stage: string }) => s.stage in STATE;

/** One task of a workflow as the workflow query returns it. */
export interface WorkflowTask {
  taskId: string;
  name: string | null;
  parentId: string | null;
  state: CeleryState;
}

export interface CeleryTask {
  name: string | null;
  state: CeleryState;
  worker: string | null;
  queue: string | null;
  runtimeMs: number | null;
  states: { state: CeleryState; at: string; worker: string }[];
  retries: {
    at: string;
    exception: string | null;
    eta: string | null;
    countdownMs: number | null;
  }[];
  exception: string | null;
  traceback: string | null;
  /** Starts that came after a start without an end or a retry: the message came back (a worker
   * lost, the broker's visibility timeout passed). */
  redeliveries: number;
  workflow: {
    rootId: string | null;
    /** The task that sent this one: the previous link of a chain, or for a chord's callback the
     * header task whose completion triggered it. */
    parent: WorkflowTask | null;
    /** Tasks this one sent (the next link of a chain, a chord's callback). */
    children: WorkflowTask[];
    /** The workflow's tasks, when there is more than this one (at most 100). */
    tasks: WorkflowTask[];
  };
}

const text = (v: AttributeValue | undefined) => (typeof v === 'string' ? v : null);
const iso = (us: number) => new Date(us / 1000).toISOString();

export function stateOf(steps: readonly { stage: string }[]): CeleryState {
  let state: CeleryState = 'PENDING';
  for (const s of steps) {
    const next = STATE[s.stage as keyof typeof STATE] as CeleryState | undefined;
    // A final state sticks (only another final one replaces it): events of one task can arrive
    // out of order.
    if (next && (!FINAL.has(state) || FINAL.has(next))) state = next;
  }
  return state;
}

export function celeryTask(steps: StoredRow[], workflow: WorkflowTask[]): CeleryTask {
  const own = steps.filter(isCeleryStep).sort((a, b) => a.timeUs - b.timeUs);
  const attr = (k: string) => {
    for (let i = own.length - 1; i >= 0; i--) {
      const v = text(own[i]!.attrs[k]);
      if (v !== null) return v;
    }
    return null;
  };
  const state = stateOf(own);
  const retries = own
    .filter((s) => s.stage === 'celery.retried')
    .map((r, i) => {
      // Retry n sends the task again with retries = n and its eta (countdown): the worker sends
      // that message just before it reports the retry.
      const resent = own.find(
        (s) =>
          (s.stage === 'celery.sent' || s.stage === 'celery.received') &&
          s.attrs['celery.retries'] === i + 1 &&
          text(s.attrs['celery.eta']) !== null,
      );
      const eta = resent ? text(resent.attrs['celery.eta']) : null;
      const countdownMs = eta ? Date.parse(eta) - r.timeUs / 1000 : NaN;
      return {
        at: iso(r.timeUs),
        exception: text(r.attrs['celery.exception']),
        eta,
        countdownMs: Number.isNaN(countdownMs) ? null : Math.max(0, Math.round(countdownMs)),
      };
    });
  const failed = own.filter((s) => s.stage === 'celery.failed').at(-1);
  const succeeded = own.filter((s) => s.stage === 'celery.succeeded').at(-1);
  const worker = own.filter((s) => s.stage !== 'celery.sent').at(-1)?.service ?? null;
  const taskId = own[0]?.eventId ?? null;
  const parentId = attr('celery.parent_id');
  const others = workflow.filter((t) => t.taskId !== taskId);
  return {
    name: attr('celery.task.name'),
    state,
    worker,
    queue: attr('celery.queue'),
    runtimeMs: succeeded ? Math.round(succeeded.durationUs / 1000) : null,
    states: own.map((s) => ({
      state: STATE[s.stage as keyof typeof STATE],
      at: iso(s.timeUs),
      worker: s.service,
    })),
    retries,
    redeliveries: redeliveries(own.map((s) => STATE[s.stage as keyof typeof STATE])),
    exception: failed ? text(failed.attrs['celery.exception']) : null,
    traceback: failed ? text(failed.attrs['celery.traceback']) : null,
    workflow: {
      rootId: attr('celery.root_id'),
      parent:
        parentId && parentId !== taskId
          ? (workflow.find((t) => t.taskId === parentId) ?? {
              taskId: parentId,
              name: null,
              parentId: null,
              state: 'PENDING',
            })
          : null,
      children: others.filter((t) => t.parentId === taskId),
      tasks: others.length ? workflow.slice(0, 100) : [],
    },
  };
}

/** Starts after a start that neither ended nor retried, in time order. */
export function redeliveries(states: readonly CeleryState[]): number {
  let running = false;
  let n = 0;
  for (const state of states) {
    if (state === 'STARTED') {
      if (running) n++;
      running = true;
    } else if (state === 'RETRY' || FINAL.has(state)) running = false;
  }
  return n;
}
