// `inspect` warns when a token's ctx seems to hold a secret: ctx is public, anyone holding the
// token can read it. A heuristic, deliberately small; it flags a string value when
//   - its key is named like a secret (password, passphrase, secret, token, api_key,
//     private_key, credential), or
//   - it starts like a well-known secret: a PEM block (`-----BEGIN`), a GitHub token (`ghp_`,
//     `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), an `sk-` API key, a Slack token (`xoxb-`,
//     ...), an AWS access key id (`AKIA` + 16), or
//   - it is a long random-looking string: at least 32 characters, no whitespace, not a URL,
//     and at least 4.2 bits of Shannon entropy per character (hex digests and UUIDs stay below
//     4; random base64 of that length lies well above).

const SECRET_KEY_NAME =
  /passw(or)?d|passphrase|secret|token|api[-_]?key|private[-_]?key|credential/i;
const SECRET_PREFIX = /^(?:-----BEGIN|gh[pousr]_|github_pat_|sk-|xox[abpr]-|AKIA[0-9A-Z]{16})/;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const MIN_RANDOM_LENGTH = 32;
const MIN_RANDOM_ENTROPY = 4.2;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The paths (`ctx.db.password`, `ctx.keys[0]`) of values in `ctxRaw` that look secret. The
 * values themselves are never returned, so a warning cannot echo them.
 */
export function secretLookingPaths(ctxRaw: string): string[] {
  const found: string[] = [];
  // An explicit stack: ctx may nest thousands deep and must not overflow the call stack.
  const stack: { value: unknown; path: string; key: string | undefined }[] = [
    { value: JSON.parse(ctxRaw), path: 'ctx', key: undefined },
  ];
  while (stack.length > 0) {
    const { value, path, key } = stack.pop()!;
    if (typeof value === 'string') {
      if (looksSecret(value, key)) found.push(path);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]`, key }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) {
        const step = IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
        stack.push({ value: item, path: path + step, key: name });
      }
    }
  }
  return found.sort();
}

function looksSecret(value: string, key: string | undefined): boolean {
  if (value === '') return false;
  if (key !== undefined && SECRET_KEY_NAME.test(key)) return true;
  return SECRET_PREFIX.test(value) || looksRandom(value);
}

function looksRandom(value: string): boolean {
  if (value.length < MIN_RANDOM_LENGTH || /\s/.test(value) || URL_LIKE.test(value)) return false;
  return entropyPerChar(value) >= MIN_RANDOM_ENTROPY;
}

/** Shannon entropy of the character distribution of `text`, in bits per character. */
export function entropyPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  const total = [...text].length;
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}
