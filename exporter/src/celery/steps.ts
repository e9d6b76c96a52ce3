// A Celery task event as a journey step: the task id is the journey's id, the workflow's root
// task id its aggregate (`celery_workflow`), so `GET /api/events?aggregate_id=<root>` lists a
// whole chain, group or chord. Arguments, keyword arguments and results are never stored;
// exceptions are scrubbed and capped like span attributes (docs/api.md).
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@acktrail/conventions';
import { scrub } from '../journeys/model/scrub.js';
import type { Step } from '../journeys/model/steps.js';
import { TASK_STATE, tracebackSummary, type TaskEvent } from './events.js';

export const WORKFLOW = 'celery_workflow';

const hex = (s: string, length: number) =>
  createHash('sha256').update(s).digest('hex').slice(0, length);

export function taskStep(
  e: TaskEvent,
  known:
    | { name: string | null; queue: string | null; rootId: string | null; running?: boolean }
    | undefined,
): Step {
  const uuidHex = e.uuid.replace(/-/g, '').toLowerCase();
  const attrs: Record<string, AttributeValue> = {};
  const put = (k: string, v: string | number | null) => {
    if (v !== null) attrs[k] = typeof v === 'string' ? scrub(v) : v;
  };
  const name = e.name ?? known?.name ?? null;
  const rootId = e.rootId ?? known?.rootId ?? null;
  put('celery.task.name', name);
  put('celery.queue', e.queue ?? known?.queue ?? null);
  put('celery.root_id', rootId);
  put('celery.parent_id', e.parentId);
  put('celery.retries', e.retries);
  put('celery.eta', e.eta);
  put('celery.runtime_s', e.runtime);
  put('celery.exception', e.exception);
  put('celery.traceback', tracebackSummary(e.traceback));
  const state = TASK_STATE[e.type];
  return {
    eventId: e.uuid,
    timeUs: Math.round(e.timestamp * 1e6),
    durationUs: e.runtime === null ? 0 : Math.round(e.runtime * 1e6),
    stage: `celery.${state}`,
    service: scrub(e.hostname),
    // The store's key is (trace_id, span_id, time): the task id as the trace, and the event's
    // identity (type, sender, Lamport clock, time) as the span, so a re-delivered event is
    // stored once.
    traceId: /^[0-9a-f]{32}$/.test(uuidHex) ? uuidHex : hex(e.uuid, 32),
    spanId: hex(`${e.type}|${e.hostname}|${e.clock ?? ''}|${e.timestamp}`, 16),
    parentSpanId: null,
    name: e.type,
    status: e.type === 'task-failed' ? 'error' : 'ok',
    statusMessage: e.exception ? scrub(e.exception) : null,
    aggregateType: WORKFLOW,
    aggregateId: rootId,
    // A start after a start that neither ended nor retried: the message came back.
    anomaly:
      e.type === 'task-failed'
        ? 'task_failed'
        : e.type === 'task-retried'
          ? 'retried'
          : e.type === 'task-started' && known?.running
            ? 'redelivered'
            : null,
    attrs,
  };
}
