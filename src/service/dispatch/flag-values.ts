import type { FlagSpec, FlagValue } from './types.js';

/**
 * The parsed flags of one call, read through typed getters so a command never casts:
 * `input.flags.string('name')`, `input.flags.boolean('long')`, `input.flags.strings('tag')`.
 * Defaults are already applied. Asking for an undeclared flag, or with the wrong type, is a
 * bug in the command and throws a plain Error (a 500), never a user-facing message.
 */
export class FlagValues {
  readonly #specs: ReadonlyMap<string, FlagSpec>;
  readonly #values: ReadonlyMap<string, FlagValue>;

  /**
   * Built by the arguments parser: `specs` are the command's flags and `values` the given
   * flags and defaults, both by long name.
   */
  constructor(specs: ReadonlyMap<string, FlagSpec>, values: ReadonlyMap<string, FlagValue>) {
    this.#specs = specs;
    this.#values = values;
  }

  /** A boolean flag: true when given. */
  boolean(name: string): boolean {
    this.#expect(name, 'boolean');
    return this.#values.get(name) === true;
  }

  /** A string flag: its value, its default, or undefined. */
  string(name: string): string | undefined {
    this.#expect(name, 'string');
    const value = this.#values.get(name);
    return typeof value === 'string' ? value : undefined;
  }

  /** A repeatable flag: every value in the order given, else its default, else `[]`. */
  strings(name: string): readonly string[] {
    this.#expect(name, 'string[]');
    const value = this.#values.get(name);
    return Array.isArray(value) ? value : [];
  }

  /** Every flag that has a value (given or default), for logs and tests. */
  toJSON(): Record<string, FlagValue> {
    return Object.fromEntries(this.#values);
  }

  #expect(name: string, type: FlagSpec['type']): void {
    const spec = this.#specs.get(name);
    if (spec?.type !== type) {
      throw new Error(`flag --${name} is not declared as ${type} on this command`);
    }
  }
}
