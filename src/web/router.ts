/**
 * Routes in the URL's fragment (`#/`, `#/s/ID`, `#/s/ID?seq=N`): the server serves one page at `/`,
 * and a link to a session works without any server route of its own.
 */

/** Where the page is. */
export type Route =
  | { readonly name: 'list' }
  | { readonly name: 'session'; readonly id: string; readonly seq?: number }
  | { readonly name: 'not-found'; readonly path: string };

/** The route of fragment `hash`. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  if (path === '/') return { name: 'list' };
  const match = /^\/s\/([^/?]+)(?:\?seq=(\d+))?$/.exec(path);
  if (match !== null) {
    let id: string;
    try {
      id = decodeURIComponent(match[1] as string);
    } catch {
      return { name: 'not-found', path };
    }
    return match[2] === undefined ? { name: 'session', id } : { name: 'session', id, seq: Number(match[2]) };
  }
  return { name: 'not-found', path };
}

/** The fragment of session `id` (at message `seq`). */
export function sessionHref(id: string, seq?: number): string {
  return `#/s/${encodeURIComponent(id)}${seq === undefined ? '' : `?seq=${seq}`}`;
}
