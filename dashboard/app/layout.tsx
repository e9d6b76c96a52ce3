import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { cookies } from 'next/headers';
import { authSettings } from '@/lib/config';
import { SESSION_COOKIE, validSession } from '@/lib/session';
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
  const session = (await cookies()).get(SESSION_COOKIE)?.value;
  const signedIn = auth.mode === 'secret' && validSession(auth.secret, session);
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
            <a href="/coverage">Coverage</a>
          </nav>
          <ThemeSelect initial={theme} />
          {signedIn ? (
            <form method="post" action="/signout" className="signout">
              <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
