// What a text view is: the readable form of one command's JSON answer (SPEC §3), a pure
// function of that answer and of the boolean flags the command line gave.

/** A boolean flag of the command that changes its text (never its JSON), e.g. `ls -l`. */
export interface ViewFlag {
  /** Long name without dashes: `long`. */
  name: string;
  /** One letter typed with one dash: `l`. */
  short: string;
}

/** The readable text of one command's answer. */
export interface TextView {
  /**
   * `flags` holds the long names of the {@link TextView.flags} that were given; `width` is the
   * terminal's columns, which tables fit, or undefined when the output is not a terminal.
   */
  render(data: unknown, flags: ReadonlySet<string>, width?: number): string;
  /** The flags `render` reads; a front end that has no parsed flags finds them in the words. */
  flags: readonly ViewFlag[];
}

/**
 * A view of answers shaped as `T`. The answer comes as parsed JSON, so its shape is the
 * command's word (SPEC §3), not something a type can check here.
 */
export function view<T>(
  render: (data: T, flags: ReadonlySet<string>, width: number | undefined) => string,
  flags: readonly ViewFlag[] = [],
): TextView {
  return { render: (data, given, width) => render(data as T, given, width), flags };
}
