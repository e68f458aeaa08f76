/**
 * Light, dark, or the system's choice (`prefers-color-scheme`): the choice is kept in
 * localStorage and set as `data-theme` on the root element, which the style sheet reads.
 */
import { useEffect, useState } from 'preact/hooks';

/** A theme choice. */
export type Theme = 'auto' | 'light' | 'dark';

const KEY = 'chatstate-theme';

/** The stored choice. */
export function storedTheme(): Theme {
  const value = globalThis.localStorage?.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'auto';
}

/** Applies and keeps `theme`. */
export function applyTheme(theme: Theme): void {
  if (theme === 'auto') {
    delete document.documentElement.dataset.theme;
    localStorage.removeItem(KEY);
  } else {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(KEY, theme);
  }
}

/** Whether the page shows dark colours now. */
export function isDark(): boolean {
  const theme = document.documentElement.dataset.theme;
  if (theme === 'dark') return true;
  if (theme === 'light') return false;
  return window.matchMedia('(prefers-color-scheme: dark)').matches;
}

/**
 * Whether the page shows dark colours, followed: the toggle (`data-theme`) and, under the system's
 * choice, a change of the system's colour scheme both change it — so what paints its own colours
 * (the chart's canvas) paints again.
 */
export function useDark(): boolean {
  const [dark, setDark] = useState(isDark);
  useEffect(() => {
    const follow = (): void => setDark(isDark());
    const observer = new MutationObserver(follow);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const system = window.matchMedia('(prefers-color-scheme: dark)');
    system.addEventListener('change', follow);
    return () => {
      observer.disconnect();
      system.removeEventListener('change', follow);
    };
  }, []);
  return dark;
}

/** The next choice of the toggle: auto → dark → light → auto. */
export function nextTheme(theme: Theme): Theme {
  return theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto';
}
