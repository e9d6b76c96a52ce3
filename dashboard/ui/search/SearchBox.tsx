// One box for an event_id or an order number; a plain GET form, so it works before hydration.
export function SearchBox({ autoFocus = false }: { autoFocus?: boolean }) {
  return (
    <form className="search" action="/lookup" method="get" role="search">
      <label htmlFor="q" className="muted">
        Event or order
      </label>
      <input
        id="q"
        name="q"
        type="search"
        placeholder="event_id or order number"
        autoFocus={autoFocus}
        required
        maxLength={128}
      />
      <button type="submit">Look up</button>
    </form>
  );
}
