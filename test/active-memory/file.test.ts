/** The active-memory spec on the file store in a temp directory (in-process text index). */
import { fileSubject } from './harness.js';
import { runActiveMemorySpec } from './spec.js';

runActiveMemorySpec(fileSubject());
