import type { Result } from '@/lib/data/api';
import { DownBanner } from '@/ui/banner';

/** What a dead-letter page shows when the exporter gave no data. */
export function NoData({ result }: { result: Exclude<Result<unknown>, { kind: 'ok' }> }) {
  if (result.kind === 'not_found')
    return (
      <p className="banner" role="note" data-testid="parking-off">
        {result.message}. Parking takes dead letters into acktrail&apos;s store so that they can be
        triaged and replayed: see docs/dead-letters.md.
      </p>
    );
  return <DownBanner what="The acktrail exporter" message={result.message} />;
}
