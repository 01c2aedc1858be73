// The keys `inspect --verify FILE` trusts. FILE may be a .pub file, an authorized_keys file
// (`[options] type base64 [comment]`) or an ssh-keygen allowed_signers file
// (`principals [options] type base64 [comment]`). Of the options only two matter here:
// `namespaces="a,b*"` restricts the namespaces a key may sign for (patterns with `*`, `?` and
// `!negation`, as in ssh-keygen), and `cert-authority` marks a CA key, which signs
// certificates, not tokens, so its line is skipped.
import { readFileSync } from 'node:fs';
import { ExectlError } from '../../../errors.js';
import { parsePublicKey, type PublicKey } from '../../../token/keys.js';
import type { TrustedKey } from '../../../inspection/trusted-keys.js';

export type { TrustedKey };

/** A field of a line: text up to whitespace outside double quotes, and where it starts. */
interface Field {
  text: string;
  start: number;
}

const KEY_TYPE = /^(?:ssh-|ecdsa-sha2-|sk-)/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Reads FILE's keys; a line that holds no usable key is an error naming FILE and the line. */
export function readTrustedKeys(path: string): TrustedKey[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ExectlError(
      'usage',
      `cannot read --verify file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      {
        hint: 'give a .pub, authorized_keys or allowed_signers file',
      },
    );
  }
  const keys = text.split('\n').flatMap((line, i) => trustedKeyOnLine(line, `${path}:${i + 1}`));
  if (keys.length === 0) {
    throw new ExectlError('usage', `--verify file ${path} holds no public key`, {
      hint: 'give a .pub, authorized_keys or allowed_signers file',
    });
  }
  return keys;
}

function trustedKeyOnLine(line: string, where: string): TrustedKey[] {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return [];
  const fields = splitFields(line);
  // The key is a type word followed by base64; a principal may also start with "ssh-".
  const keyAt = fields.findIndex(
    (f, i) => KEY_TYPE.test(f.text) && BASE64.test(fields[i + 1]?.text ?? ''),
  );
  if (keyAt < 0) {
    throw new ExectlError('usage', `${where}: no SSH public key on this line`, {
      hint: 'each line needs "type base64", e.g. "ssh-ed25519 AAAA..."',
    });
  }
  const options = fields.slice(0, keyAt).flatMap((f) => splitOutsideQuotes(f.text, ','));
  if (options.includes('cert-authority')) return [];
  const namespaces = options.find((o) => o.startsWith('namespaces="') && o.endsWith('"'));
  let key: PublicKey;
  try {
    key = parsePublicKey(line.slice(fields[keyAt]!.start));
  } catch (err) {
    if (!(err instanceof ExectlError)) throw err;
    throw new ExectlError('usage', `${where}: ${err.message}`, { hint: err.hint });
  }
  return [{ key, namespaces: namespaces?.slice('namespaces="'.length, -1) }];
}

function splitFields(line: string): Field[] {
  const fields: Field[] = [];
  const pattern = /(?:"(?:[^"\\]|\\.)*"|[^\s"])+/g;
  for (const match of line.matchAll(pattern)) fields.push({ text: match[0], start: match.index });
  return fields;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}
