// A fixture that registers its own setup and teardown hooks (see suiteFixture).
import { after, before } from 'node:test';

/**
 * A fixture for the file or `describe` block it is called in (at its top level, not inside a
 * hook or a test): `open` runs in a `before` hook and `close` in an `after` hook that it
 * registers itself, as miniflare's fixtures clean up after themselves. The handle reads the
 * fixture of the moment (a store reopened, for instance); it throws when used before the hook.
 * At a file's top level, Node 20 starts each `before` hook as it is registered, without waiting
 * for the one before it: a file with a top-level `before` of its own uses the fixture from a
 * `describe` block instead, where hooks run one after another.
 */
export function suiteFixture<T extends object>(
  open: () => Promise<T>,
  close: (fixture: T) => unknown,
): T {
  let fixture: T | undefined;
  before(async () => {
    fixture = await open();
  });
  after(async () => {
    if (fixture !== undefined) await close(fixture);
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (fixture === undefined)
        throw new Error('a suite fixture is used before its before hook ran');
      const value: unknown = Reflect.get(fixture, key);
      return typeof value === 'function' ? value.bind(fixture) : value;
    },
  });
}
