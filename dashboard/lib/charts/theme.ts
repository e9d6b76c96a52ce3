// The colour theme the reader chose (ui/theme/ThemeSelect.tsx stores it in a cookie): light, dark,
// or the system's. Read on the server so the first paint is already right.
import 'server-only';
import { cookies } from 'next/headers';

export const THEME_COOKIE = 'acktrail_theme';
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export async function readTheme(): Promise<Theme> {
  const value = (await cookies()).get(THEME_COOKIE)?.value;
  return THEMES.find((t) => t === value) ?? 'system';
}
