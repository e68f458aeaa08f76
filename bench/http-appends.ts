/**
 * What the HTTP bench's clients send: one append at a time over one kept-alive `node:http`
 * connection, timed. Used in the bench's own process, and by `http-client-child.ts` in a process
 * of its own (a caller on the same machine, as a real one would be).
 * @module
 */
import { Agent, request } from 'node:http';
import { now } from './store-fixtures.js';

/** One message of append number `n` (ids unique across the whole run). */
export function message(n: number): { id: string; role: 'user'; content: string } {
  return { id: `m-${n}`, role: 'user', content: `message ${n}: where should we eat tonight?` };
}

/** POSTs `body` to `url` over `agent`'s kept-alive connection; resolves with the status and body. */
function post(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A client of one session's append route. */
export class AppendClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly url: URL;
  private readonly headers: Record<string, string>;

  constructor(baseUrl: string, sessionId: string, key: string) {
    this.url = new URL(`${baseUrl}/sessions/${sessionId}/messages`);
    this.headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  }

  /** Appends message `n`; its round-trip time in ms. Throws on any answer but 200. */
  async append(n: number): Promise<number> {
    const start = now();
    const response = await post(this.agent, this.url, this.headers, JSON.stringify({ messages: [message(n)] }));
    const ms = now() - start;
    if (response.status !== 200) throw new Error(`append answered ${response.status}: ${response.text}`);
    return ms;
  }

  close(): void {
    this.agent.destroy();
  }
}
