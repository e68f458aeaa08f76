/**
 * Loopback names and addresses: where a server without keys may listen, and where a browser
 * session's cookie may go without `Secure`.
 * @module
 */

/** True for the loopback names and addresses (`localhost`, 127.0.0.0/8, `::1`). */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
