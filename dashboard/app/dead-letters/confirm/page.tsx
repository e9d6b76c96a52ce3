// /dead-letters/confirm?group=…|ids=…: before a bulk replay, what it would do (a dry run of the
// exporter): how many messages go to each target, why each is allowed (the configuration's, or the
// message's claim), the queues it reaches now, and which are refused and why. Its form, sent
// with confirmed=1, starts the replay; nothing is published until then. Operators only.
import { isOperator } from '@/lib/auth/access';
import { planReplay } from '@/lib/data/api';
import { NoData } from '@/ui/deadletters/ParkingOff';
import Link from 'next/link';
import { replay } from '@/app/dead-letters/actions';
import { ReplayTargets } from '@/ui/deadletters/ReplayTargets';

export const dynamic = 'force-dynamic';

const ID = /^\d{1,18}$/;
const GROUP = /^[A-Za-z0-9_-]{1,1200}$/;

export default async function Confirm({
  searchParams,
}: {
  searchParams: Promise<{ group?: string; ids?: string | string[] }>;
}) {
  const { group, ids } = await searchParams;
  const chosen = [ids ?? []].flat().filter((i) => ID.test(i));
  const selection =
    group && GROUP.test(group) ? { group } : chosen.length > 0 ? { ids: chosen } : null;
  if (!selection) return <p className="banner">Nothing selected to replay.</p>;
  if (!(await isOperator()))
    return (
      <p className="banner" role="alert">
        Only an operator may replay dead letters.
      </p>
    );
  const plan = await planReplay(selection);
  if (plan.kind !== 'ok') return <NoData result={plan} />;
  const p = plan.value;
  const going = p.targets.reduce((n, t) => n + t.count, 0);
  const back = 'group' in selection ? `/dead-letters/group/${selection.group}` : '/dead-letters';
  return (
    <section>
      <h1>Replay {p.total} dead letters?</h1>
      <p>
        <Link href={back}>Back, without replaying</Link>
      </p>
      <h2>Where they go</h2>
      <ReplayTargets targets={p.targets} />
      {p.refused.length > 0 ? (
        <>
          <h2>Refused: they stay parked</h2>
          <ul data-testid="refused">
            {p.refused.map((r) => (
              <li key={r.reason}>
                {r.count} message{r.count === 1 ? '' : 's'}:{' '}
                {r.ids.map((id) => (
                  <Link key={id} href={`/dead-letters/${id}`}>
                    #{id}{' '}
                  </Link>
                ))}
                {r.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {p.notParked > 0 ? (
        <p className="muted">{p.notParked} selected are not parked any more.</p>
      ) : null}
      {going > 0 ? (
        <form action={replay}>
          {'group' in selection ? (
            <>
              <input type="hidden" name="group" value={selection.group} />
              <input type="hidden" name="scope" value="group" />
            </>
          ) : (
            selection.ids.map((id) => <input key={id} type="hidden" name="ids" value={id} />)
          )}
          <input type="hidden" name="confirmed" value="1" />
          <button type="submit" data-testid="confirm-replay">
            Replay {going} message{going === 1 ? '' : 's'}
          </button>
        </form>
      ) : (
        <p className="banner">Nothing here may be replayed.</p>
      )}
    </section>
  );
}
