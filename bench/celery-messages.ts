// The Celery benchmark's messages: what a Celery 5 prefork worker and its clients publish for
// BENCH_CELERY_TASKS tasks (task-sent one per message, the worker's task events in `task.multi`
// lists of 10, heartbeats).
import { randomUUID } from 'node:crypto';

export const TASKS = Number(process.env.BENCH_CELERY_TASKS ?? 50_000);

/** Message bodies (routing key, JSON) for TASKS tasks: 4 events each, plus heartbeats. */
export function messages(): { key: string; body: Buffer; events: number }[] {
  const out: { key: string; body: Buffer; events: number }[] = [];
  const t0 = Date.now() / 1000 - 600;
  let batch: object[] = [];
  let clock = 0;
  const flush = () => {
    if (!batch.length) return;
    out.push({ key: 'task.multi', body: Buffer.from(JSON.stringify(batch)), events: batch.length });
    batch = [];
  };
  for (let i = 0; i < TASKS; i++) {
    const uuid = randomUUID();
    const at = t0 + i * 0.01;
    const common = { hostname: 'celery@bench', utcoffset: 0, pid: 42, uuid };
    out.push({
      key: 'task.sent',
      events: 1,
      body: Buffer.from(
        JSON.stringify({
          ...common,
          hostname: 'gen1@bench',
          clock: ++clock,
          root_id: uuid,
          parent_id: null,
          name: `tasks.job${i % 20}`,
          args: '(1, 2)',
          kwargs: '{}',
          retries: 0,
          eta: null,
          expires: null,
          queue: 'celery',
          exchange: '',
          routing_key: 'celery',
          timestamp: at,
          type: 'task-sent',
        }),
      ),
    });
    batch.push(
      {
        ...common,
        clock: ++clock,
        name: `tasks.job${i % 20}`,
        root_id: uuid,
        parent_id: null,
        retries: 0,
        timestamp: at + 0.001,
        type: 'task-received',
      },
      { ...common, clock: ++clock, timestamp: at + 0.002, type: 'task-started' },
      {
        ...common,
        clock: ++clock,
        result: '3',
        runtime: 0.004,
        timestamp: at + 0.006,
        type: 'task-succeeded',
      },
    );
    if (batch.length >= 10) flush();
    if (i % 1000 === 0)
      out.push({
        key: 'worker.heartbeat',
        events: 1,
        body: Buffer.from(
          JSON.stringify({
            hostname: 'celery@bench',
            freq: 2,
            active: 1,
            processed: i,
            timestamp: at,
            type: 'worker-heartbeat',
          }),
        ),
      });
  }
  flush();
  return out;
}
