'use client';
// One panel's failure stays in the panel: the overview's strip, queues, charts and lists, and a
// list on any page, each render inside one. What failed is said with the reference the
// dashboard's log has for it (a production build keeps a server error's message in the log, not
// in the page); the rest of the page, and the header with the search, stay usable.
import { Component, type ReactNode } from 'react';

interface Props {
  /** What the panel is, as the page calls it ("Queues"). */
  what: string;
  children: ReactNode;
}

export class PanelBoundary extends Component<
  Props,
  { error: (Error & { digest?: string }) | null }
> {
  state = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  render() {
    const error = this.state.error as (Error & { digest?: string }) | null;
    if (!error) return this.props.children;
    return (
      <p className="banner" role="alert" data-testid="panel-failed">
        {this.props.what} could not be shown
        {error.digest
          ? ` (reference ${error.digest} in the dashboard's log)`
          : `: ${error.message}`}
        . The rest of the page is not affected; reload to try again.
      </p>
    );
  }
}
