// The value sets of `serve --runtime` and `--log-level`: checked by options.ts, offered by
// shell completion. A module of its own so that declaring the flags loads nothing else.
export const RUNTIMES = ['auto', 'bwrap', 'process'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
