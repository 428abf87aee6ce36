/** One entry of LOREKEEPER_API_KEYS: a bearer token and the campaign ids it may reach (null = all). */
export interface ApiKeyEntry {
  token: string;
  scope: string | null;
}

/** Tokens are 16–256 visible ASCII characters; `,` and `=` separate entries and scopes. */
const TOKEN = /^[\x21-\x2b\x2d-\x3c\x3e-\x7e]{16,256}$/;
/** A campaign-id glob: id characters plus `*` (any run of characters, also none). */
const GLOB = /^[A-Za-z0-9._:*-]{1,128}$/;

/**
 * Parses `token[=glob],token[=glob],…` (DESIGN §3 / docs/guarantees.md). Throws an Error naming the
 * bad entry by position, never echoing a token.
 */
export function parseApiKeys(raw: string): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  const parts = raw.split(',').map((p) => p.trim());
  parts.forEach((part, i) => {
    if (part === '') return;
    const eq = part.indexOf('=');
    const token = eq === -1 ? part : part.slice(0, eq);
    const scope = eq === -1 ? null : part.slice(eq + 1);
    if (!TOKEN.test(token)) throw new Error(`entry ${i + 1}: a token must be 16–256 visible ASCII characters without "," or "="`);
    if (scope !== null && !GLOB.test(scope)) throw new Error(`entry ${i + 1}: the scope must be a campaign-id glob (letters, digits, . _ : - and *)`);
    entries.push({ token, scope });
  });
  if (entries.length === 0) throw new Error('no key given (unset the variable to run without authentication)');
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
