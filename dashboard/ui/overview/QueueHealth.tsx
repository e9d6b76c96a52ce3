// "Queues": one row per work queue with its health status (the exporter's Burrow-style
// evaluation: OK, WARN, STALL, STOP, or UNKNOWN without broker counters) and the rule that decided
// it, coloured, before the charts; a queue with messages waiting links to the journey of its
// oldest one. The worst come first, in pages of 50, filtered by name and status (plain GET links
// and a GET form: shareable, and the problems strip links to a filtered list).
import Link from 'next/link';
import { getWorkQueues } from '@/lib/data/api';
import { DownBanner } from '@/ui/banner';
import { formatValue } from './format';

const CLASS = { ok: 'ok', warn: 'warn', stall: 'bad', stop: 'bad', unknown: 'warn' } as const;
const RANK = { stop: 0, stall: 1, unknown: 2, warn: 3, ok: 4 } as const;
/** Rows per page: the queues that need a look come first, so thousands stay readable. */
export const PAGE_ROWS = 25;
const STATUSES = Object.keys(RANK) as (keyof typeof RANK)[];

export interface QueueFilter {
  /** Part of the queue's name (case-insensitive); '' for all. */
  name: string;
  /** One status, or null for all. */
  status: keyof typeof RANK | null;
  /** 1-based. */
  page: number;
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

/** The table's filter from the overview's URL (`qname`, `qstatus`, `qpage`), bounded. */
export function parseQueueFilter(
  params: Record<string, string | string[] | undefined>,
): QueueFilter {
  const status = one(params.qstatus);
  const page = Number(one(params.qpage));
  return {
    name: one(params.qname).slice(0, 200),
    status: (STATUSES as string[]).includes(status) ? (status as keyof typeof RANK) : null,
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
  };
}

export async function QueueHealth({
  filter,
  params,
}: {
  filter: QueueFilter;
  /** The overview's other parameters (the range), kept by the table's links. */
  params: URLSearchParams;
}) {
  const r = await getWorkQueues();
  if (r.kind !== 'ok') return <DownBanner what="The exporter" message={r.message} />;
  const all = r.value.queues;
  if (!all.length)
    return (
      <p className="muted">
        No work queue read yet: does the exporter reach the broker (RABBITMQ_MANAGEMENT_URL)?
      </p>
    );
  const needle = filter.name.toLowerCase();
  const matching = all
    .filter((q) => !needle || q.queue.toLowerCase().includes(needle))
    .filter((q) => !filter.status || (q.status?.status ?? 'unknown') === filter.status)
    .sort(
      (a, b) =>
        RANK[a.status?.status ?? 'ok'] - RANK[b.status?.status ?? 'ok'] ||
        a.queue.localeCompare(b.queue),
    );
  const pages = Math.max(1, Math.ceil(matching.length / PAGE_ROWS));
  const page = Math.min(filter.page, pages);
  const queues = matching.slice((page - 1) * PAGE_ROWS, page * PAGE_ROWS);
  const href = (n: number) => {
    const p = new URLSearchParams(params);
    if (filter.name) p.set('qname', filter.name);
    if (filter.status) p.set('qstatus', filter.status);
    p.set('qpage', String(n));
    return `/?${p.toString()}#queues`;
  };
  return (
    <>
      <form method="get" action="/#queues" className="queue-filter" aria-label="Filter queues">
        {[...params].map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <label>
          Queue name <input type="search" name="qname" id="queue-name" defaultValue={filter.name} />
        </label>
        <label>
          Status{' '}
          <select name="qstatus" defaultValue={filter.status ?? ''}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.toUpperCase()}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
        <span className="muted" data-testid="queue-count">
          {matching.length} of {all.length} work queues
        </span>
      </form>
      <table className="queues" data-testid="queue-health">
        <thead>
          <tr>
            <th>status</th>
            <th>queue</th>
            <th>why</th>
            <th>ready</th>
            <th>consumers</th>
            <th>oldest waiting</th>
          </tr>
        </thead>
        <tbody>
          {queues.map((q) => (
            <QueueRow key={`${q.vhost}/${q.queue}`} q={q} />
          ))}
        </tbody>
      </table>
      {pages > 1 ? (
        <nav className="pager" aria-label="Queue pages" data-testid="queue-pages">
          {page > 1 ? <Link href={href(page - 1)}>previous</Link> : null} page {page} of {pages}{' '}
          {page < pages ? <Link href={href(page + 1)}>next</Link> : null}
        </nav>
      ) : null}
    </>
  );
}

type WorkQueue = Extract<
  Awaited<ReturnType<typeof getWorkQueues>>,
  { kind: 'ok' }
>['value']['queues'][number];

/** One queue's row; its name opens the journeys that passed it in the last hour. */
function QueueRow({ q }: { q: WorkQueue }) {
  const status = q.status?.status ?? 'ok';
  return (
    <tr data-queue={q.queue} data-status={q.status?.status ?? 'unknown'}>
      <td>
        <span className={`badge ${CLASS[status]}`}>{q.status ? status.toUpperCase() : '…'}</span>
      </td>
      <td>
        <Link href={`/events?${new URLSearchParams({ queue: q.queue, since: '1h' }).toString()}`}>
          {q.queue}
        </Link>{' '}
        <span className="muted">{q.vhost}</span>
      </td>
      <td>{q.status?.rule ?? 'not evaluated yet'}</td>
      <td>{q.ready}</td>
      <td>{q.consumers}</td>
      <td>
        {q.headEventId ? (
          <Link href={`/events/${encodeURIComponent(q.headEventId)}`}>{q.headEventId}</Link>
        ) : q.ready > 0 ? (
          <span className="muted">not in the journeys</span>
        ) : null}
        {q.ready > 0 && q.headAgeSeconds > 0 ? (
          <span className="muted"> ({formatValue(q.headAgeSeconds, 'seconds')})</span>
        ) : null}
      </td>
    </tr>
  );
}

export function QueueHealthSkeleton() {
  return <div className="skeleton panel-skeleton" aria-busy="true" aria-label="Queues" />;
}
