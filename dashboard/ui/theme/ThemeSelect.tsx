'use client';
// Light, dark or the system's theme. The choice goes into a cookie (read by the server on the next
// page) and onto <html data-theme> at once.
import { useState } from 'react';

const THEMES = ['system', 'light', 'dark'] as const;

export function ThemeSelect({ initial }: { initial: string }) {
  const [theme, setTheme] = useState(initial);
  return (
    <label className="theme">
      Theme{' '}
      <select
        value={theme}
        onChange={(e) => {
          const next = e.target.value;
          setTheme(next);
          document.documentElement.dataset.theme = next;
          document.cookie = `acktrail_theme=${next}; path=/; max-age=31536000; samesite=strict`;
        }}
      >
        {THEMES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
    </label>
  );
}
