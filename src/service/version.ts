import { readFileSync } from 'node:fs';

/** exectl's version, from package.json (src/service/ and dist/bundle/ both sit two levels in). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
