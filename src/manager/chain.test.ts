/**
 * `walkChain`: both directions from any link, a missing link named, a loop or a link that is not an
 * id `CORRUPT` (never an endless or a quiet walk), and `maxLinks` bounding each direction.
 */
import { describe, expect, it } from 'vitest';
import { rejectionCodeOf } from '../../test/support/errors.js';
import { walkChain, type ChainNode } from './chain.js';

/** Nodes by id, linked in the order given (`a → b → c`), then patched by `links`. */
function chain(ids: readonly string[], links: Record<string, Partial<ChainNode>> = {}): Map<string, ChainNode> {
  const nodes = new Map<string, ChainNode>();
  ids.forEach((id, index) =>
    nodes.set(id, { id, continuedFrom: ids[index - 1], continuedTo: ids[index + 1], ...links[id] }),
  );
  return nodes;
}

async function walk(nodes: Map<string, ChainNode>, from: string, maxLinks?: number) {
  const start = nodes.get(from) as ChainNode;
  const found = await walkChain(
    start,
    async (id) => nodes.get(id),
    (node) => node,
    maxLinks === undefined ? {} : { maxLinks },
  );
  return {
    before: found.before.map((node) => node.id),
    after: found.after.map((node) => node.id),
    missing: found.missing,
  };
}

describe('walkChain', () => {
  it('finds the predecessors root first and the successors oldest first, from any link', async () => {
    const nodes = chain(['a', 'b', 'c', 'd']);
    expect(await walk(nodes, 'a')).toEqual({ before: [], after: ['b', 'c', 'd'], missing: [] });
    expect(await walk(nodes, 'c')).toEqual({ before: ['a', 'b'], after: ['d'], missing: [] });
  });

  it('names a linked session that is gone, and stops there', async () => {
    const nodes = chain(['a', 'b', 'c', 'd']);
    nodes.delete('a');
    nodes.delete('d');
    expect(await walk(nodes, 'b')).toEqual({ before: [], after: ['c'], missing: ['a', 'd'] });
  });

  it('is CORRUPT when the links loop, forward, backward or across the start', async () => {
    expect(await rejectionCodeOf(walk(chain(['a', 'b', 'c'], { c: { continuedTo: 'a' } }), 'a'))).toBe('CORRUPT');
    expect(await rejectionCodeOf(walk(chain(['a', 'b', 'c'], { a: { continuedFrom: 'b' } }), 'c'))).toBe('CORRUPT');
    expect(await rejectionCodeOf(walk(chain(['a', 'b'], { b: { continuedTo: 'b' } }), 'b'))).toBe('CORRUPT');
  });

  it('is CORRUPT for a link that is not an id (damaged or hostile metadata), before reading it', async () => {
    const nodes = chain(['a', 'b'], { b: { continuedTo: '../../etc/passwd' } });
    const read: string[] = [];
    const walking = walkChain(
      nodes.get('a') as ChainNode,
      async (id) => {
        read.push(id);
        return nodes.get(id);
      },
      (node) => node,
    );
    expect(await rejectionCodeOf(walking)).toBe('CORRUPT');
    expect(read).toEqual(['b']);
  });

  it('follows at most maxLinks links in each direction', async () => {
    const ids = Array.from({ length: 9 }, (_, index) => `s${index}`);
    expect(await walk(chain(ids), 's4', 2)).toEqual({ before: ['s2', 's3'], after: ['s5', 's6'], missing: [] });
    // A loop beyond the bound is not reached: the bounded view shows what it found.
    expect(await walk(chain(ids, { s8: { continuedTo: 's0' } }), 's4', 2)).toMatchObject({ after: ['s5', 's6'] });
  });
});
