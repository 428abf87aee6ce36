import { ID_PATTERN } from './ids';

/** The character a viewer-bound key reads as (DESIGN §8 "Who may read what"). */
export interface BoundViewer {
  kind: 'player' | 'npc';
  id: string;
}

/**
 * One entry of LOREKEEPER_API_KEYS: a bearer token, the campaign ids it may reach (null = all), its viewer if bound.
 */
export interface ApiKeyEntry {
  token: string;
  scope: string | null;
  /** Set for `token=<glob>@player:<id>` / `@npc:<id>`: a read-only key that reads as that character. */
  viewer?: BoundViewer;
}

/** Tokens are 16–256 visible ASCII characters; `,` and `=` separate entries and scopes. */
const TOKEN = /^[\x21-\x2b\x2d-\x3c\x3e-\x7e]{16,256}$/;
/** A campaign-id glob: id characters plus `*` (any run of characters, also none). */
const GLOB = /^[A-Za-z0-9._:*-]{1,128}$/;

const BOUND = /^(.*)@(player|npc):(.*)$/;

/**
 * Parses `token[=glob[@player:<id>|@npc:<id>]],…` (DESIGN §3, §8 / docs/guarantees.md). Throws an Error naming
 * the bad entry by position, never echoing a token.
 */
export function parseApiKeys(raw: string): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  const parts = raw.split(',').map((p) => p.trim());
  parts.forEach((part, i) => {
    if (part === '') return;
    const eq = part.indexOf('=');
    const token = eq === -1 ? part : part.slice(0, eq);
    let scope = eq === -1 ? null : part.slice(eq + 1);
    if (!TOKEN.test(token))
      throw new Error(`entry ${i + 1}: a token must be 16–256 visible ASCII characters without "," or "="`);
    const bound = scope === null ? null : BOUND.exec(scope);
    if (bound) {
      if (!ID_PATTERN.test(bound[3])) throw new Error(`entry ${i + 1}: the viewer after @${bound[2]}: must be an id`);
      scope = bound[1];
    }
    if (scope !== null && !GLOB.test(scope))
      throw new Error(`entry ${i + 1}: the scope must be a campaign-id glob (letters, digits, . _ : - and *)`);
    entries.push(
      bound ? { token, scope, viewer: { kind: bound[2] as BoundViewer['kind'], id: bound[3] } } : { token, scope },
    );
  });
  if (entries.length === 0) throw new Error('no key given (unset the variable to run without authentication)');
  // A token reads as one character or as none: listing it with two bindings would make its rights ambiguous.
  const binding = new Map<string, string>();
  entries.forEach((e, i) => {
    const b = e.viewer ? `${e.viewer.kind}:${e.viewer.id}` : '';
    if ((binding.get(e.token) ?? b) !== b)
      throw new Error(`entry ${i + 1}: a token listed again must keep the same @player/@npc binding`);
    binding.set(e.token, b);
  });
  return entries;
}

/** `*` matches any run of characters; everything else matches itself, case-sensitively like ids. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
