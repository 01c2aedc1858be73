// `exectl run browser` opens the link it got where a browser can be opened (SPEC §11): the
// program `$BROWSER` names, else macOS's `open`, else `xdg-open` under a graphical session.
// Without one (a server over SSH, a container), the link printed above is all there is.
import { spawn } from 'node:child_process';
import type { CliContext } from '../../context.js';

/** The program that opens a URL here, or undefined when none can. */
function opener(env: CliContext['env']): string | undefined {
  if (env.BROWSER !== undefined && env.BROWSER !== '') return env.BROWSER;
  if (process.platform === 'darwin') return 'open';
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return 'xdg-open';
  return undefined;
}

/** Opens `link` in a browser when one can be opened; says so, or why not, on stderr. */
export function openInBrowser(ctx: CliContext, link: string): void {
  const program = opener(ctx.env);
  if (program === undefined) {
    ctx.stderr.write(
      'exectl: no browser to open here: open the link above (once, within 15 minutes)\n',
    );
    return;
  }
  // Detached and ignored: the browser outlives this command, and its output is not ours.
  const child = spawn(program, [link], { detached: true, stdio: 'ignore', env: { ...ctx.env } });
  child.on('error', () =>
    ctx.stderr.write(`exectl: could not start ${program}: open the link above\n`),
  );
  child.unref();
}
