// A progress spinner on stderr for requests that take a moment (SPEC §8 run: "a spinner after
// 300 ms"): quick answers never flash one, and pipes, -q, dumb terminals and EXECTL_SPINNER=off
// never see one. It says what it waits for and the whole seconds waited so far.
import type { CliContext } from './context.js';

/** A spinner that may or may not have appeared yet; `stop` is safe to call more than once. */
interface DelayedSpinner {
  stop(): void;
}

const SPINNER_DELAY_MS = 300;

/**
 * Shows an ora spinner with `text` and the seconds since the call (`new: waiting for the setup
 * script… 12s`) on stderr once `delayMs` have passed, if stderr is a terminal of known width
 * (not a dumb one), `-q` was not given and EXECTL_SPINNER is not `off` (for recordings of a
 * terminal, and tests that compare screens). ora is loaded only when the spinner is due.
 */
export function startSpinner(
  ctx: CliContext,
  text: string,
  delayMs = SPINNER_DELAY_MS,
): DelayedSpinner {
  // A terminal of unknown width (0 columns) would make ora's line clearing run away.
  const columns = (ctx.stderr as { columns?: number }).columns ?? 0;
  const off = ctx.env.EXECTL_SPINNER === 'off';
  if (off || ctx.quiet || ctx.stderr.isTTY !== true || ctx.env.TERM === 'dumb' || columns <= 0) {
    return { stop: () => {} };
  }
  const started = Date.now();
  const label = (): string => `${text}… ${Math.floor((Date.now() - started) / 1000)}s`;
  let stopped = false;
  let spinner: { stop(): unknown; text: string } | undefined;
  let ticking: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    void import('ora').then(({ default: ora }) => {
      if (stopped) return;
      spinner = ora({
        text: label(),
        stream: ctx.stderr,
        // Already decided above; ora's own guess would print plain lines instead under CI=1.
        isEnabled: true,
        // ora must not put stdin in raw mode: Ctrl-C has to keep working as usual.
        discardStdin: false,
        color: ctx.color ? 'cyan' : false,
      }).start();
      // The seconds change once a second; ora redraws the text with its next frame.
      ticking = setInterval(() => {
        if (spinner !== undefined) spinner.text = label();
      }, 1000);
    });
  }, delayMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(ticking);
      spinner?.stop();
      spinner = undefined;
    },
  };
}
