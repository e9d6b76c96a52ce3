// The parts of one parked message's page (/dead-letters/{id}): its facts, where it died
// (x-death) and, for operators, its headers and body.
import type { DeadLetterDetail } from '@/lib/data/api';
import type { Death } from '@/lib/data/types';
import { when } from '@/ui/deadletters/format';
import { Table } from '@/ui/page/Table';

/** Queue, event, reason, when it was parked, where a replay goes, the last replay error. */
export function Facts({ d }: { d: DeadLetterDetail }) {
  return (
    <table>
      <tbody>
        <tr>
          <th scope="row">Queue</th>
          <td>
            <code>{d.queue}</code> (vhost <code>{d.vhost}</code>)
          </td>
        </tr>
        <tr>
          <th scope="row">Event</th>
          <td>{d.eventId ? <code>{d.eventId}</code> : 'no message id'}</td>
        </tr>
        <tr>
          <th scope="row">Reason</th>
          <td data-testid="reason">
            {d.reasonSource === 'x-death' || d.reasonSource === 'none' ? (
              <>
                {d.reason} <span className="muted">({d.reasonSource})</span>
              </>
            ) : (
              <>
                the message&apos;s header <code>{d.reasonSource}</code> says <q>{d.reason}</q>
              </>
            )}
          </td>
        </tr>
        <tr>
          <th scope="row">Parked</th>
          <td>
            {when(d.parkedAt)}, kept until {when(d.expiresAt)}
          </td>
        </tr>
        <tr>
          <th scope="row">A replay goes to</th>
          <td>
            {d.replayTo ? (
              <>
                exchange <code>{d.replayTo.exchange || '(default)'}</code>, routing key{' '}
                <code>{d.replayTo.routingKey}</code>{' '}
                <span className="muted">(from {d.replayTo.source})</span>
              </>
            ) : (
              'nowhere known: set deadLetters.queues[].replayTo'
            )}
          </td>
        </tr>
        {d.lastError ? (
          <tr>
            <th scope="row">Last replay error</th>
            <td>{d.lastError}</td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

/** The broker's x-death entries, as the message carried them. */
export function Deaths({ deaths }: { deaths: Death[] }) {
  if (deaths.length === 0)
    return <p className="muted">None: the application dead-lettered it itself.</p>;
  return (
    <Table
      testId="deaths"
      columns={['Queue', 'Reason', 'Count', 'Exchange', 'Routing keys', 'Time']}
      rows={deaths}
      rowKey={(x, i) => i}
    >
      {(x) => (
        <>
          <td>{x.queue}</td>
          <td>{x.reason}</td>
          <td>{x.count}</td>
          <td>{x.exchange}</td>
          <td>{x.routingKeys.join(', ')}</td>
          <td>{x.time ? when(new Date(x.time * 1000).toISOString()) : ''}</td>
        </>
      )}
    </Table>
  );
}

/** Headers and body for operators; why they do not open, or that only operators see them. */
export function Content({ d }: { d: DeadLetterDetail }) {
  return (
    <>
      {d.contentError ? (
        <p className="banner" role="alert" data-testid="content-error">
          The message does not open: {d.contentError}
        </p>
      ) : null}
      {d.content ? (
        <>
          <h2>Headers</h2>
          <pre data-testid="headers">{JSON.stringify(d.content.headers, null, 2)}</pre>
          <h2>Body</h2>
          <pre data-testid="body">
            {'text' in d.content.body ? d.content.body.text : `base64: ${d.content.body.base64}`}
          </pre>
        </>
      ) : (
        <p className="muted" data-testid="no-body">
          Headers and body are shown to operators only.
        </p>
      )}
    </>
  );
}
