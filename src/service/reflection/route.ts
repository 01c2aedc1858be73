// What a request to the reflection listener asks for, read from its raw target. Nothing is
// percent-decoded: secrets, paths and integration names are compared as sent, so no encoding
// trick can make two different targets mean the same thing.
import { INTEGRATION_SEGMENT } from './urls.js';

/** A reflection secret as the store makes them: base64url (random-ids.ts). */
const SECRET = /^[A-Za-z0-9_-]+$/;

export type ReflectionRoute =
  /** Not under `/vm/<secret>`: nothing here. */
  | { kind: 'none' }
  /**
   * A reflection document. `path` is `/` for the index (`{reflection_url}` and
   * `{reflection_url}/`), else the path with trailing slashes dropped (`/email/` is `/email`).
   */
  | { kind: 'document'; secret: string; path: string }
  /**
   * An integration's address: `{reflection_url}/i/<name><rest>`. `rest` is what follows the
   * name, query included, exactly as sent: `''`, `'/'`, `'/v1/models?x=1'`, `'?x=1'`.
   */
  | { kind: 'integration'; secret: string; name: string; rest: string };

/** Reads a request target such as `/vm/<secret>/tags?x` (the query is ignored for documents). */
export function parseReflectionRoute(target: string): ReflectionRoute {
  const match = /^\/vm\/([^/?]+)(.*)$/s.exec(target);
  if (match === null || !SECRET.test(match[1]!)) return { kind: 'none' };
  const secret = match[1]!;
  const tail = match[2]!;

  const integration = new RegExp(`^/${INTEGRATION_SEGMENT}/([^/?]+)(.*)$`, 's').exec(tail);
  if (integration !== null) {
    return { kind: 'integration', secret, name: integration[1]!, rest: integration[2]! };
  }
  const queryAt = tail.indexOf('?');
  const path = (queryAt < 0 ? tail : tail.slice(0, queryAt)).replace(/\/+$/, '');
  return { kind: 'document', secret, path: path === '' ? '/' : path };
}
