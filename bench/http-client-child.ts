/**
 * The HTTP bench's client in a process of its own: `node --import tsx http-client-child.ts URL
 * SESSION KEY`; for each IPC message `{ first, count }` it sends `count` appends (numbered from
 * `first`) one at a time and answers with their round-trip times in ms.
 * @module
 */
import { AppendClient } from './http-appends.js';

const [url, sessionId, key] = process.argv.slice(2) as [string, string, string];
const client = new AppendClient(url, sessionId, key);

process.on('message', (round: { first: number; count: number } | 'stop') => {
  if (round === 'stop') {
    client.close();
    process.disconnect();
    return;
  }
  void (async () => {
    const times: number[] = [];
    try {
      for (let i = 0; i < round.count; i++) times.push(await client.append(round.first + i));
      process.send?.({ times });
    } catch (error) {
      process.send?.({ error: String(error) });
    }
  })();
});
