'use client';
// Re-renders the page's server components every few seconds (router.refresh keeps the scroll
// position and the client state). The choice lives in the URL, so it survives a reload.
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect } from 'react';
import { REFRESH, type Refresh } from '@/lib/data/range';

export function AutoRefresh({ every }: { every: Refresh }) {
  const router = useRouter();
  const params = useSearchParams();
  useEffect(() => {
    const seconds = REFRESH[every];
    if (!seconds) return;
    const timer = setInterval(() => {
      router.refresh();
    }, seconds * 1000);
    return () => {
      clearInterval(timer);
    };
  }, [every, router]);
  return (
    <label>
      Auto refresh{' '}
      <select
        value={every}
        onChange={(e) => {
          const next = new URLSearchParams(params.toString());
          if (e.target.value === 'off') next.delete('refresh');
          else next.set('refresh', e.target.value);
          router.replace(`/?${next.toString()}`);
        }}
      >
        {Object.keys(REFRESH).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </label>
  );
}
