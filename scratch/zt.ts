import { z } from 'zod';
import { Message } from '../src/message/message.js';
const s = z.fromJSONSchema({ type: 'object', properties: { name: { type: 'string' }, tasks: { type: 'array', items: { type: 'string' } } }, required: ['name'], additionalProperties: false });
console.log(s.safeParse({ name: 'a', tasks: ['x'] }).success, s.safeParse({ name: 1 }).success, s.safeParse({ name: 'a', x: 1 }).success);
console.log(z.prettifyError(s.safeParse({ name: 1 }).error!));
console.log(Message.context('', { metadata: { a: 1 } }));
