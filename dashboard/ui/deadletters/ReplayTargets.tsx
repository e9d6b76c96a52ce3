// A replay plan's targets: where each goes, what named it, why the exporter allows it (the
// configuration's, or only the message's claim), the queues it reaches now, and how many go.
import type { ReplayPlan } from '@/lib/data/types';

type Target = ReplayPlan['targets'][number];

const BASIS: Record<Target['basis'], string> = {
  configured: 'configured (replayTo)',
  listed: 'listed (allowedTargets)',
  claimed: 'the message’s claim (x-death)',
};

export function ReplayTargets({ targets }: { targets: Target[] }) {
  return (
    <table data-testid="targets">
      <thead>
        <tr>
          <th scope="col">Exchange</th>
          <th scope="col">Routing key</th>
          <th scope="col">Said by</th>
          <th scope="col">Allowed as</th>
          <th scope="col">Reaches now</th>
          <th scope="col">Messages</th>
        </tr>
      </thead>
      <tbody>
        {targets.map((t) => (
          <tr key={`${t.exchange}\u0000${t.routingKey}\u0000${t.source}\u0000${t.basis}`}>
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
          </tr>
        ))}
      </tbody>
    </table>
  );
}
