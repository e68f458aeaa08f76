/**
 * The page: who is logged in (a login form when the server needs a key), the header with the
 * theme toggle and logout, and the route's view.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import { Login } from './login.js';
import { parseRoute, type Route } from './router.js';
import { SessionList } from './session-list.js';
import { SessionView } from './session-view.js';
import { applyTheme, nextTheme, storedTheme, type Theme } from './theme.js';
import type { Who } from './types.js';

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = (): void => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

const THEME_LABELS: Readonly<Record<Theme, string>> = {
  auto: 'Theme: system',
  dark: 'Theme: dark',
  light: 'Theme: light',
};

/** The whole page. */
export function App() {
  const route = useRoute();
  const [who, setWho] = useState<Who | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [theme, setTheme] = useState<Theme>(storedTheme);

  const refreshWho = useCallback(() => {
    api
      .who()
      .then(setWho, (failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)));
  }, []);
  useEffect(refreshWho, [refreshWho]);

  /** A 401 anywhere means the browser session ended: back to the login. */
  const onUnauthorized = useCallback((failure: unknown) => {
    if (failure instanceof ApiError && failure.status === 401) setWho({ keysRequired: true, principal: null });
  }, []);

  const toggleTheme = (): void => {
    const next = nextTheme(theme);
    applyTheme(next);
    setTheme(next);
  };

  const loggedIn = who !== undefined && (!who.keysRequired || who.principal !== null);
  return (
    <div class="page">
      <header class="top">
        <a class="brand" href="#/">
          chatstate <span class="muted">sessions</span>
        </a>
        <span class="spacer" />
        {who?.principal != null && (
          <span class="who" data-testid="who">
            {who.principal.tenant}
            {who.principal.userId === undefined ? '' : ` · ${who.principal.userId}`}
          </span>
        )}
        <button type="button" class="ghost" onClick={toggleTheme} aria-label={`${THEME_LABELS[theme]} (change)`}>
          {THEME_LABELS[theme]}
        </button>
        {who?.keysRequired === true && who.principal !== null && (
          <button type="button" class="ghost" onClick={() => void api.logout().then(refreshWho)}>
            Log out
          </button>
        )}
      </header>
      <main class="content">
        {error !== undefined && <p role="alert">{error}</p>}
        {who === undefined && error === undefined && <p class="muted">Loading…</p>}
        {who !== undefined && !loggedIn && <Login onLogin={setWho} />}
        {loggedIn && route.name === 'list' && <SessionList onUnauthorized={onUnauthorized} />}
        {loggedIn && route.name === 'session' && (
          <SessionView
            key={route.id}
            id={route.id}
            {...(route.seq === undefined ? {} : { seq: route.seq })}
            onUnauthorized={onUnauthorized}
          />
        )}
        {loggedIn && route.name === 'not-found' && <NotFound what={`No page ${route.path}`} />}
      </main>
    </div>
  );
}

/** The not-found view. */
export function NotFound({ what }: { readonly what: string }) {
  return (
    <section class="not-found" data-testid="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p>{what}</p>
      <p>
        <a href="#/">Back to the sessions</a>
      </p>
    </section>
  );
}
