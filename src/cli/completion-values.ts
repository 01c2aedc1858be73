// The fixed value sets of flags, for shell completion (SPEC §8). Kept beside the commander tree
// rather than as commander `.choices()`: those would replace the commands' own messages for a
// bad value (`--runtime: invalid value "x" — use one of …`) with commander's.
import type { Option } from 'commander';

const VALUES = new WeakMap<Option, readonly string[]>();

/** `option`, marked as taking one of `values`; completion offers exactly these. */
export function withValues(option: Option, values: readonly string[]): Option {
  VALUES.set(option, [...values]);
  return option;
}

/** The fixed values of `option`, or undefined when its value is free. */
export function valuesOf(option: Option): readonly string[] | undefined {
  return VALUES.get(option);
}
