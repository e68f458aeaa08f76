/** The active-memory spec on the SQLite store in a temp file (FTS5 text search). */
import { sqliteSubject } from './harness.js';
import { runActiveMemorySpec } from './spec.js';

runActiveMemorySpec(sqliteSubject());
