// The time range: presets as links (shareable URLs), a custom window as a GET form, and the auto
// refresh beside them. Times are UTC, like the rest of the dashboard.
import { PRESETS, toInputValue, type TimeRange } from '@/lib/data/range';
import { AutoRefresh } from './AutoRefresh';

export function RangePicker({ range }: { range: TimeRange }) {
  const keep = range.refresh === 'off' ? '' : `&refresh=${range.refresh}`;
  return (
    <div className="range" role="group" aria-label="Time range">
      <nav aria-label="Preset ranges">
        {Object.keys(PRESETS).map((p) => (
          <a
            key={p}
            href={`/?range=${p}${keep}`}
            className="button"
            aria-current={range.preset === p ? 'true' : undefined}
          >
            {p}
          </a>
        ))}
      </nav>
      <form method="get" action="/" className="custom-range">
        <label>
          From (UTC){' '}
          <input
            type="datetime-local"
            name="from"
            defaultValue={toInputValue(range.start)}
            required
          />
        </label>
        <label>
          To (UTC) <input type="datetime-local" name="to" defaultValue={toInputValue(range.end)} />
        </label>
        {range.refresh === 'off' ? null : (
          <input type="hidden" name="refresh" value={range.refresh} />
        )}
        <button type="submit">Apply</button>
      </form>
      <AutoRefresh every={range.refresh} />
      {range.error ? (
        <p className="banner" role="alert">
          {range.error}; showing the last hour.
        </p>
      ) : null}
    </div>
  );
}
