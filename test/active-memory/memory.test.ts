/** The active-memory spec on the memory store (in-process text index). */
import { memorySubject } from './harness.js';
import { runActiveMemorySpec } from './spec.js';

runActiveMemorySpec(memorySubject());
