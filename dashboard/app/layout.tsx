import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SearchBox } from '@/ui/search/SearchBox';
import './globals.css';

export const metadata: Metadata = {
  title: 'acktrail',
  description: 'Event journeys of the order pipeline',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header>
          <a className="brand" href="/">
            acktrail
          </a>
          <SearchBox />
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
