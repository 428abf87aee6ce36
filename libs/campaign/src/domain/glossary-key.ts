/** Glossary terms are compared case-insensitively (DESIGN §8): one key per term, whatever its case or spacing. */
export const glossaryKey = (term: string): string => term.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
