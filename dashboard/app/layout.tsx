import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { currentSession } from '@/lib/access';
import { authSettings } from '@/lib/config';
import { readTheme } from '@/lib/theme';
import { SearchBox } from '@/ui/search/SearchBox';
import { ThemeSelect } from '@/ui/theme/ThemeSelect';
import './globals.css';

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
          <a className="brand" href="/">
            acktrail
          </a>
          <SearchBox />
          <nav aria-label="Views">
            <a href="/dead-letters">Dead letters</a>
            <a href="/coverage">Coverage</a>
          </nav>
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
            <a href="/signin">Operator sign-in</a>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
