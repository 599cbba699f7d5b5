/**
 * Client-side routing under `/console` with the History API: every console path is a real URL
 * (the server answers the same page for all of them), so pages can be linked to, reloaded and
 * navigated with the browser's Back button.
 */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

const listeners = new Set<() => void>();

/** Goes to `path` (a path under /console) without reloading the page. */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

/** The current path, re-rendering on navigation. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/**
 * Follows plain left clicks on links to console pages in the app instead of loading the page
 * again; downloads, other origins and modified clicks (new tab…) are left to the browser.
 */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element).closest('a');
    if (!anchor || anchor.hasAttribute('download') || anchor.target) return;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(`${BASE}/`)) return;
    if (url.pathname.startsWith(`${BASE}/assets/`)) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
    // The new page's heading takes the focus, so keyboard and screen reader users land on it.
    requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
  });
}

/** The path of an entity's page. */
export function entityPath(id: string): string {
  return `${BASE}/entity/${encodeURIComponent(id)}`;
}
