// The value sets of `serve --runtime` and `--log-level`: checked by options.ts, offered by
// shell completion. A module of its own so that declaring the flags loads nothing else.
import type { LogLevel } from '../../../service/index.js';

export const RUNTIMES = ['auto', 'bwrap', 'process'] as const;
/** From the most to the least verbose; `--log-level` shows its own level and those after it. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly LogLevel[];
