// A progress spinner on stderr for requests that take a moment (SPEC §8 run: "a spinner after
// 300 ms"): quick answers never flash one, and pipes, -q and dumb terminals never see one.
import type { CliContext } from './context.js';

/** A spinner that may or may not have appeared yet; `stop` is safe to call more than once. */
interface DelayedSpinner {
  stop(): void;
}

const SPINNER_DELAY_MS = 300;

/**
 * Shows an ora spinner with `text` on stderr once `delayMs` have passed, if stderr is a
 * terminal of known width (not a dumb one) and `-q` was not given. ora is loaded only when
 * the spinner is due.
 */
export function startSpinner(
  ctx: CliContext,
  text: string,
  delayMs = SPINNER_DELAY_MS,
): DelayedSpinner {
  // A terminal of unknown width (0 columns) would make ora's line clearing run away.
  const columns = (ctx.stderr as { columns?: number }).columns ?? 0;
  if (ctx.quiet || ctx.stderr.isTTY !== true || ctx.env.TERM === 'dumb' || columns <= 0) {
    return { stop: () => {} };
  }
  let stopped = false;
  let spinner: { stop(): unknown } | undefined;
  const timer = setTimeout(() => {
    void import('ora').then(({ default: ora }) => {
      if (stopped) return;
      spinner = ora({
        text,
        stream: ctx.stderr,
        // Already decided above; ora's own guess would print plain lines instead under CI=1.
        isEnabled: true,
        // ora must not put stdin in raw mode: Ctrl-C has to keep working as usual.
        discardStdin: false,
        color: ctx.color ? 'cyan' : false,
      }).start();
    });
  }, delayMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      spinner?.stop();
      spinner = undefined;
    },
  };
}
