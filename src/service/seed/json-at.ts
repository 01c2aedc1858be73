// Reading an untrusted JSON document field by field, where every complaint names the JSON path
// of the value at fault (`accounts[0].vms[2].name: ...`). Used by the seed file parser.
import { ExectlError } from '../../errors.js';
import { scanStrictJson } from '../../token/strict-json.js';
import { quote } from '../rules/validate.js';

/** A JSON value and the path that leads to it from the document's root. */
export class JsonAt {
  constructor(
    readonly value: unknown,
    readonly path: string,
  ) {}

  /** A failure of this value: `<path>: <problem>`. */
  fail(problem: string): never {
    throw new SeedFormatError(this.path === '' ? problem : `${this.path}: ${problem}`);
  }

  /** The member values of this object, refusing members whose names are not in `known`. */
  object(known: readonly string[]): ObjectAt {
    const record = this.record();
    for (const key of Object.keys(record)) {
      if (!known.includes(key)) {
        this.fail(`unknown field ${quote(key)} (known: ${known.join(', ')})`);
      }
    }
    return new ObjectAt(record, this.path);
  }

  private record(): Record<string, unknown> {
    const { value } = this;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(`expected an object, found ${describe(value)}`);
    }
    return value as Record<string, unknown>;
  }

  /** The items of this array. */
  array(): JsonAt[] {
    if (!Array.isArray(this.value)) this.fail(`expected an array, found ${describe(this.value)}`);
    return (this.value as unknown[]).map((item, i) => new JsonAt(item, `${this.path}[${i}]`));
  }

  string(): string {
    if (typeof this.value !== 'string')
      this.fail(`expected a string, found ${describe(this.value)}`);
    return this.value as string;
  }

  /** A whole number from `min` to `max`. */
  integer(min: number, max: number): number {
    const { value } = this;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(`expected a whole number from ${min} to ${max}, found ${describe(value)}`);
    }
    return value as number;
  }

  /** This object's members as `[name, value]`, whatever their names. */
  entries(): [string, JsonAt][] {
    return Object.entries(this.record()).map(([key, value]) => [
      key,
      new JsonAt(value, memberPath(this.path, key)),
    ]);
  }

  /** This string run through a check that throws a 422 sentence (the service's validators). */
  check<T>(checker: (value: string) => T): T {
    const text = this.string();
    return this.guard(() => checker(text));
  }

  /** Runs `work`; a 422 sentence it throws becomes a failure at this path. */
  guard<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (err instanceof ExectlError && err.code === 'command_failed') this.fail(err.message);
      throw err;
    }
  }
}

/** An object's members, each looked up as a {@link JsonAt} with its own path. */
export class ObjectAt {
  constructor(
    private readonly record: Record<string, unknown>,
    private readonly path: string,
  ) {}

  /** The member, or undefined when it is absent (`null` counts as present). */
  optional(key: string): JsonAt | undefined {
    if (!Object.hasOwn(this.record, key)) return undefined;
    return new JsonAt(this.record[key], memberPath(this.path, key));
  }

  required(key: string): JsonAt {
    const member = this.optional(key);
    if (member === undefined) new JsonAt(this.record, this.path).fail(`missing field "${key}"`);
    return member!;
  }
}

/** The seed file is wrong: a usage error whose message names the JSON path. */
export class SeedFormatError extends ExectlError {
  constructor(message: string) {
    super('cannot_start', message, {
      hint: 'fix the seed file; its format is in exectl-serve(1), section SEED FILE',
    });
    this.name = 'SeedFormatError';
  }
}

/**
 * Parses `text` as one JSON document. Duplicate keys are refused at every depth: JSON.parse
 * would silently keep the last one, and a seed meaning two things at once is a mistake.
 */
export function parseJsonDocument(text: string): JsonAt {
  const scan = scanStrictJson(text);
  if (!scan.ok) {
    throw new SeedFormatError(
      scan.problem === 'duplicate_key'
        ? `duplicate key ${JSON.stringify(scan.key)}`
        : 'not valid JSON',
    );
  }
  return new JsonAt(JSON.parse(text), '');
}

/** `parent.key`, or `parent["odd key"]` for a key that is not a plain word. */
function memberPath(parent: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${parent}[${quote(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string`;
  return `${typeof value} ${JSON.stringify(value)}`;
}
