import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { currentSession } from '@/lib/auth/access';
import { authSettings } from '@/lib/config/settings';
import { readTheme } from '@/lib/charts/theme';
import { SearchBox } from '@/ui/search/SearchBox';
import { ThemeSelect } from '@/ui/theme/ThemeSelect';
import './globals.css';
import Link from 'next/link';

export const metadata: Metadata = {
  title: 'acktrail',
  description: "Event journeys of a job pipeline's messages",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = await readTheme();
  const auth = authSettings();
  const session = await currentSession();
  // With DASHBOARD_AUTH=none everyone is a viewer without signing in: nothing to sign out of.
  const signedIn =
    session && !(auth.mode === 'none' && session.role === 'viewer' && !session.verified)
      ? session
      : null;
  return (
    <html lang="en" data-theme={theme}>
      <body>
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header>
          <Link className="brand" href="/">
            acktrail
          </Link>
          {/* Signed out there is nothing to look up: the sign-in form is the page's only one. */}
          {signedIn || auth.mode === 'none' ? <SearchBox /> : null}
          <nav aria-label="Views">
            <Link href="/events">Journeys</Link>
            <Link href="/dead-letters">Dead letters</Link>
            <Link href="/coverage">Coverage</Link>
          </nav>
          <span className="muted zone" title="Every time on these pages is UTC">
            times UTC
          </span>
          <ThemeSelect initial={theme} />
          {signedIn ? (
            <form method="post" action="/signout" className="signout">
              {signedIn.role === 'operator' ? (
                <span className="badge warn" data-testid="operator">
                  operator{signedIn.name ? ` ${signedIn.name}` : ''}
                </span>
              ) : null}
              <button type="submit">Sign out</button>
            </form>
          ) : auth.mode === 'none' && auth.operatorSecret !== null ? (
            <Link href="/signin">Operator sign-in</Link>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
