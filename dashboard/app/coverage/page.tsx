// /coverage: what the spans received so far let journeys read (GET /api/coverage), per service,
// stage and instrumentation: spans, the share with an event id, and each gap with the line of code
// that closes it in that SDK.
// Required gaps are marked bad, optional ones (aggregate id) a warning; a deliver row says which
// settles its spans record, which the broker's evidence infers, and what would record them.
// Services whose spans show that they sample their traces are listed with what that does to
// acktrail's answers.
import { getCoverage } from '@/lib/data/api';
import type { CoverageReport } from '@/lib/data/types';
import { DownBanner } from '@/ui/banner';
import { at } from '@/ui/time';
import Link from 'next/link';
import { Table } from '@/ui/page/Table';

export const dynamic = 'force-dynamic';

type Row = CoverageReport['rows'][number];

const share = (part: number, whole: number) =>
  whole === 0 ? '–' : `${Math.round((100 * part) / whole)}%`;

function Gaps({ row }: { row: Row }) {
  if (row.gaps.length === 0) return <span className="badge ok">complete</span>;
  return (
    <ul className="gaps">
      {row.gaps.map((g) => (
        <li key={g.attribute}>
          <span className={`badge ${g.optional ? 'warn' : 'bad'}`}>
            {g.attribute.replace(/_/g, ' ')}
          </span>{' '}
          on {g.spans} of {row.spans}: {g.fix}
        </li>
      ))}
    </ul>
  );
}

/** On a deliver row: what its spans record of settles, what is inferred and from what. */
function Settles({ row }: { row: Row }) {
  const s = row.settles;
  if (!s) return null;
  return (
    <p className="muted" data-testid="settles">
      Settles recorded by its spans: {s.recorded}.
      {s.inferred ? (
        <>
          {' '}
          <span className="badge warn">inferred</span> {s.inferred}.
        </>
      ) : null}
      {s.toRecord ? <> To record them: {s.toRecord}</> : null}
    </p>
  );
}

export default async function CoveragePage() {
  const result = await getCoverage();
  if (result.kind !== 'ok')
    return <DownBanner what="The acktrail exporter" message={result.message} />;
  const { rows, since, sampling } = result.value;
  return (
    <section>
      <h1>Instrumentation coverage</h1>
      <p className="muted">
        What the spans received since {at(since)} (this exporter&apos;s start) let journeys read,
        and how to close each gap.
      </p>
      {rows.length === 0 ? (
        <p>No messaging spans received yet: point your services&apos; OTLP exporter here.</p>
      ) : (
        <Table
          testId="coverage"
          columns={['Service', 'Stage', 'Instrumentation', 'Spans', 'With event id', 'Missing']}
          rows={rows}
          rowKey={(r) => `${r.service}/${r.stage}/${r.sdk.id}`}
        >
          {(r) => (
            <>
              <td>
                <Link
                  href={`/events?${new URLSearchParams({ service: r.service, stage: r.stage, since: '24h' }).toString()}`}
                >
                  {r.service}
                </Link>
              </td>
              <td>
                <code>{r.stage}</code>
              </td>
              <td title={r.sdk.source}>{r.sdk.name}</td>
              <td>{r.spans}</td>
              <td>{share(r.withEventId, r.spans)}</td>
              <td>
                <Gaps row={r} />
                <Settles row={r} />
              </td>
            </>
          )}
        </Table>
      )}
      {sampling.length > 0 ? (
        <>
          <h2>Services that sample their traces</h2>
          <ul data-testid="sampling">
            {sampling.map((s) => (
              <li key={s.service}>
                <strong>{s.service}</strong>: {s.says}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
