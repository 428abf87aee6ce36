import { BuiltSection, ContextSection, SectionEntry, SectionInput } from '../context.types';

/** Campaign Bible (DESIGN §8): frozen, never trimmed; the dm agent also gets the dm-only part. */
export class BibleSection implements ContextSection {
  readonly key = 'bible' as const;
  readonly title = 'Campaign Bible';

  async build({ snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const bible = snapshot.state.bible;
    const entries: SectionEntry[] = [];
    if (bible?.text.trim()) entries.push({ ref: 'text', text: bible.text.trim() });
    if (audience?.dm && bible?.dmOnly.trim())
      entries.push({ ref: 'dmOnly', text: `### DM only\n${bible.dmOnly.trim()}` });
    return { key: this.key, title: this.title, entries };
  }
}
