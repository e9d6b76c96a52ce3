'use client';
// Re-renders the page's server components every second while `running` (a bulk replay's progress).
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

export function RefreshWhile({ running }: { running: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      router.refresh();
    }, 1000);
    return () => {
      clearInterval(timer);
    };
  }, [running, router]);
  return null;
}
