import type { MemoryView } from '@app/memory';
import { SectionEntry } from '../context.types';
import { memoryLine } from '../format';

/** Memories (given newest first) as entries oldest → newest. */
export function memoryEntries(newestFirst: MemoryView[]): SectionEntry[] {
  return [...newestFirst].reverse().map((m) => ({
    ref: m.id,
    subjectId: m.subjectId,
    createdAt: m.createdAt,
    text: memoryLine(m.createdAt, m.summary),
    revision: m.revision,
    origin: m.origin,
  }));
}
