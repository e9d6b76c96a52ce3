// A Celery task's journey: its state, worker and queue, every state with its time, the retries
// with their countdowns and exceptions, the failure with its traceback summary, and its place in
// the workflow (the task that sent it, the tasks it sent, the rest of the workflow).
import type { Journey } from '@/lib/data/types';
import Link from 'next/link';
import { Table } from '@/ui/page/Table';

type Task = NonNullable<Journey['celery']>;

const link = (id: string) => `/events/${encodeURIComponent(id)}`;

function TaskRef({ t }: { t: Task['workflow']['children'][number] }) {
  return (
    <>
      <Link href={link(t.taskId)}>
        <code>{t.taskId}</code>
      </Link>{' '}
      {t.name ?? 'unknown task'} <span className="muted">{t.state}</span>
    </>
  );
}

export function CeleryTask({ task }: { task: Task }) {
  const w = task.workflow;
  return (
    <section data-testid="celery">
      <h2>Celery task</h2>
      <p>
        <strong>{task.name ?? 'unknown task'}</strong>{' '}
        <span
          className={`badge ${task.state === 'SUCCESS' ? 'ok' : task.state === 'FAILURE' ? 'bad' : 'warn'}`}
        >
          {task.state}
        </span>{' '}
        {task.worker ? <>on {task.worker} </> : null}
        {task.queue ? <>from queue {task.queue} </> : null}
        {task.runtimeMs !== null ? <>in {task.runtimeMs} ms</> : null}
      </p>
      {task.exception ? (
        <p className="banner" data-testid="celery-exception">
          {task.exception}
          {task.traceback ? (
            <>
              <br />
              <code>{task.traceback}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {task.retries.length ? (
        <Table
          testId="celery-retries"
          caption="Retries"
          columns={['#', 'at', 'exception', 'countdown']}
          rows={task.retries}
          rowKey={(r) => r.at}
        >
          {(r, i) => (
            <>
              <td>{i + 1}</td>
              <td>{r.at}</td>
              <td>{r.exception}</td>
              <td>{r.countdownMs === null ? '' : `${(r.countdownMs / 1000).toFixed(1)} s`}</td>
            </>
          )}
        </Table>
      ) : null}
      <Table
        testId="celery-states"
        caption="States"
        columns={['state', 'at', 'worker or client']}
        rows={task.states}
        rowKey={(s, i) => `${s.state}-${i}`}
      >
        {(s) => (
          <>
            <td>{s.state}</td>
            <td>{s.at}</td>
            <td>{s.worker}</td>
          </>
        )}
      </Table>
      <h3>Workflow</h3>
      <ul data-testid="celery-workflow">
        {w.parent ? (
          <li>
            sent by <TaskRef t={w.parent} />
          </li>
        ) : (
          <li>no parent task: this task started its workflow</li>
        )}
        {w.children.map((c) => (
          <li key={c.taskId}>
            sent <TaskRef t={c} />
          </li>
        ))}
        {w.rootId ? (
          <li>
            the whole workflow:{' '}
            <Link href={`/orders/${encodeURIComponent(w.rootId)}`}>
              {w.tasks.length || 1} tasks
            </Link>
          </li>
        ) : null}
      </ul>
    </section>
  );
}
