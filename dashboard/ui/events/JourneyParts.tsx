// The parts of a journey's page (/events/{id}): its kinds, its ids, the provider's attempts and
// every entry with its raw attributes on demand.
import Link from 'next/link';
import { clock } from '@/ui/time';
import { traceLink } from '@/lib/data/api';
import type { Journey, TimelineEntry } from '@/lib/data/types';
import { CopyButton } from '@/ui/events/CopyButton';
import { Table } from '@/ui/page/Table';

const BAD = new Set([
  'dead_lettered',
  'discarded',
  'rejected',
  'stuck_in_outbox',
  'unroutable',
  'aggregate_missing',
  'never_acked',
]);

/** The journey's kinds as badges: bad, fine (delivered once) or worth a look. */
export function Kinds({ kinds }: { kinds: Journey['kinds'] }) {
  return (
    <p>
      {kinds.map((k) => (
        <span
          key={k}
          className={`badge ${BAD.has(k) ? 'bad' : k === 'delivered_once' ? 'ok' : 'warn'}`}
        >
          {k.replace(/_/g, ' ')}
        </span>
      ))}
    </p>
  );
}

/** The event id, the aggregate's (by the pipeline's word for it) and the trace ids, each copyable. */
export function Ids({ journey: j, aggregateWord }: { journey: Journey; aggregateWord: string }) {
  return (
    <div className="ids">
      <span>
        event <code>{j.eventId}</code> <CopyButton value={j.eventId} label="event id" />
      </span>
      {j.aggregate ? (
        <span>
          {j.aggregate.type === 'celery_workflow' ? 'workflow' : aggregateWord}{' '}
          <Link href={`/orders/${encodeURIComponent(j.aggregate.id)}`}>{j.aggregate.id}</Link>{' '}
          <CopyButton value={j.aggregate.id} label={`${aggregateWord} id`} />
        </span>
      ) : null}
      {j.traceIds.map((t) => {
        const link = traceLink(t);
        return (
          <span key={t}>
            trace{' '}
            {link ? (
              <a href={link}>
                <code>{t}</code>
              </a>
            ) : (
              <code>{t}</code>
            )}{' '}
            <CopyButton value={t} label="trace id" />
          </span>
        );
      })}
    </div>
  );
}

/** The provider's attempts, when the pipeline's rows have them. */
export function Attempts({ attempts }: { attempts: Journey['attempts'] }) {
  if (!attempts.length) return null;
  return (
    <>
      <h2>Provider attempts</h2>
      <Table
        testId="attempts"
        columns={['#', 'outcome', 'status', 'at', 'duration']}
        rows={attempts}
        rowKey={(a) => a.attempt}
      >
        {(a) => (
          <>
            <td>{a.attempt}</td>
            <td>{a.outcome.replace(/_/g, ' ')}</td>
            <td>{a.statusCode ?? 'no answer'}</td>
            <td>{a.at}</td>
            <td>{a.durationMs} ms</td>
          </>
        )}
      </Table>
    </>
  );
}

/** Every entry of the time line, its attributes behind a disclosure. */
export function Entries({ timeline }: { timeline: TimelineEntry[] }) {
  return (
    <Table
      testId="entries"
      columns={['at', 'stage', 'service', 'duration', 'gap', 'note', 'attributes']}
      rows={timeline}
      rowKey={(e, i) => `${e.spanId ?? e.stage}-${i}`}
    >
      {(e) => (
        <>
          <td>{clock(e.at)}</td>
          <td>{e.stage}</td>
          <td>{e.service ?? <span className="muted">database</span>}</td>
          <td>{e.durationMs === null ? '' : `${e.durationMs.toFixed(1)} ms`}</td>
          <td>
            {e.gapMs === null ? '' : `+${e.gapMs} ms`}
            {e.skewMs !== null ? (
              <span className="badge warn">clock skew {e.skewMs} ms</span>
            ) : null}
          </td>
          <td>{e.note}</td>
          <td>
            {Object.keys(e.attributes).length ? (
              <details>
                <summary>{Object.keys(e.attributes).length} attributes</summary>
                <pre>{JSON.stringify(e.attributes, null, 2)}</pre>
              </details>
            ) : null}
          </td>
        </>
      )}
    </Table>
  );
}

/**
 * The settles no span recorded, decided by the broker's evidence (or a framework's own spans):
 * each marked inferred, with the evidence in words, so that none passes for a span's record.
 */
export function Inferred({ journey: j }: { journey: Journey }) {
  if (j.inferred.length === 0) return null;
  return (
    <section aria-label="Inferred settles" data-testid="inferred">
      <h2>Inferred</h2>
      <ul>
        {j.inferred.map((i) => (
          <li key={`${i.spanId}-${i.evidence}`}>
            <span className="badge warn">inferred</span> {i.words}
          </li>
        ))}
      </ul>
    </section>
  );
}
