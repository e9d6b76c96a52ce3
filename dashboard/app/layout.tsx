import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { readTheme } from '@/lib/theme';
import { SearchBox } from '@/ui/search/SearchBox';
import { ThemeSelect } from '@/ui/theme/ThemeSelect';
import './globals.css';

export const metadata: Metadata = {
  title: 'acktrail',
  description: 'Event journeys of the order pipeline',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = await readTheme();
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
          <ThemeSelect initial={theme} />
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
