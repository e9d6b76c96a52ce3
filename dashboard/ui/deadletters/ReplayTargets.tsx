// A replay plan's targets: where each goes, what named it, why the exporter allows it (the
// configuration's, or only the message's claim), the queues it reaches now, and how many go.
import type { ReplayPlan } from '@/lib/data/types';
import { Table } from '@/ui/page/Table';

type Target = ReplayPlan['targets'][number];

const BASIS: Record<Target['basis'], string> = {
  configured: 'configured (replayTo)',
  listed: 'listed (allowedTargets)',
  claimed: 'the message’s claim (x-death)',
};

export function ReplayTargets({ targets }: { targets: Target[] }) {
  return (
    <Table
      testId="targets"
      columns={['Exchange', 'Routing key', 'Said by', 'Allowed as', 'Reaches now', 'Messages']}
      rows={targets}
      rowKey={(t) => `${t.exchange}\u0000${t.routingKey}\u0000${t.source}\u0000${t.basis}`}
    >
      {(t) => (
        <>
          <td>
            <code>{t.exchange === '' ? '(default exchange)' : t.exchange}</code>
          </td>
          <td>
            <code>{t.routingKey}</code>
          </td>
          <td>{t.source}</td>
          <td>{BASIS[t.basis]}</td>
          <td>
            {t.reaches === null ? 'not known' : t.reaches.join(', ') || 'no queue'}
            {t.note ? <p className="muted">{t.note}</p> : null}
          </td>
          <td>{t.count}</td>
        </>
      )}
    </Table>
  );
}
