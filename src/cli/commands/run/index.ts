// `exectl run` (SPEC §8): post one command line to the service's /exec and show the answer.
import { Option, type Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import { prepareRunLine } from '../../../command-line.js';
import type { CliContext } from '../../context.js';
import type { ExecResponse } from '../../exec/http.js';
import {
  execExitCode,
  failureKind,
  isJson,
  isVmOutput,
  responseError,
  streamCutOff,
} from '../../exec/answer.js';
import { jsonStyleFor, prettyJson } from '../../json-pretty.js';
import { answerText } from '../../exec/text.js';
import { exitCodesHelp } from '../../exit-codes-help.js';
import { terminalColumns } from '../../terminal-width.js';
import { streamSink } from '../../output-sink.js';
import { sendSigned } from '../../exec/send-signed.js';
import { startSpinner } from '../../spinner.js';
import { noteStillCreating, spinnerText } from './progress.js';
import { openInBrowser } from './open-browser.js';

interface RunOptions {
  token?: string;
  key?: string;
  /** JSON instead of text on a terminal (indented and coloured there). */
  json?: boolean;
  /** The body byte for byte, even on a terminal. */
  raw?: boolean;
  /** `--no-open`: `browser` prints its link without opening it. */
  open?: boolean;
}

/**
 * Runs the command line `args` (one argument: a command line as is; several: words to quote)
 * on the service and prints its output. Failures are thrown as the ExectlError of their status,
 * which main.ts turns into SPEC §8's exit code.
 */
async function runRun(
  ctx: CliContext,
  args: readonly string[],
  options: RunOptions,
): Promise<CommandOutcome> {
  const prepared = prepareRunLine(args);
  const settings = ctx.settings({ key: options.key });
  const shape = answerShape(ctx, options);
  const { response, signedBy, configuredToken } = await sendSigned(ctx, settings, {
    flag: options.token,
    scope: prepared.scope,
    grants: prepared.grants,
    request: { prepared, onChunk: streamSink(ctx.stdout) },
    whileWaiting: () => startSpinner(ctx, spinnerText(prepared)),
  });
  // A VM command cut off says why in X-Exec-Error, whatever the status (SPEC §2).
  const cutOff = streamCutOff(response);
  if (cutOff !== undefined) throw cutOff;
  const ok = response.status >= 200 && response.status < 300;
  if (!ok || (!isJson(response) && !isVmOutput(response))) {
    if (response.status === 422 && failureKind(response) === 'result') {
      await printBody(ctx, response, shape, prepared.line, true);
    }
    throw responseError(response, {
      url: settings.url,
      scope: prepared.scope,
      signedBy,
      configuredToken,
      namespace: settings.namespace,
    });
  }
  await printBody(ctx, response, shape, prepared.line, false);
  noteStillCreating(ctx, prepared, response.body);
  if (prepared.path === 'browser' && options.open !== false) {
    openInBrowser(
      ctx,
      (JSON.parse(response.body.toString('utf8')) as { magic_link: string }).magic_link,
    );
  }
  const exit = execExitCode(response);
  if (exit !== undefined && exit !== 0) {
    // Streamed output of `ssh <vm> ...` whose exit code came in the trailer.
    throw new ExectlError('command_failed', `the command exited with ${exit}`, {
      hint: 'its output is above; `exectl ssh` exits with its exit code',
    });
  }
  return undefined;
}

/**
 * How a JSON answer is shown (SPEC §8): on a terminal, the readable text the SSH front end
 * shows, or with --json the JSON indented and coloured; --raw, and anything that is not a
 * terminal (a pipe, a file: scripts read it), the body exactly as received.
 */
type AnswerShape = 'text' | 'pretty' | 'raw';

function answerShape(ctx: CliContext, options: RunOptions): AnswerShape {
  if (ctx.stdout.isTTY !== true || options.raw === true) return 'raw';
  return options.json === true ? 'pretty' : 'text';
}

/**
 * Prints a JSON body of the answer to `line` in `shape`; `failed`: a 422 that carries a result
 * (shown in the generic text, as SSH does). A body that is not what it says is printed as is.
 */
async function printBody(
  ctx: CliContext,
  response: ExecResponse,
  shape: AnswerShape,
  line: string,
  failed: boolean,
): Promise<void> {
  // A raw body (output of `ssh <vm> ...`) has already gone to stdout as it arrived.
  if (!isJson(response)) return;
  const text = response.body.toString('utf8');
  const readable =
    shape === 'text' ? textOf(line, text, failed, terminalColumns(ctx.stdout)) : undefined;
  const shown =
    readable ?? (shape === 'raw' ? undefined : prettyJson(text, await jsonStyleFor(ctx)));
  if (shown !== undefined) ctx.stdout.write(shown);
  else ctx.stdout.write(response.body);
}

/** The readable text of a JSON body, or undefined when it is not JSON or JSON was asked for. */
function textOf(
  line: string,
  body: string,
  failed: boolean,
  width: number | undefined,
): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return undefined;
  }
  return answerText(line, data, failed, width);
}

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description('run a command on the service: post a command line to /exec')
      .argument('<command-line...>', 'one argument: a whole command line; several: its words')
      .option('--token <token>', 'bearer token (env EXECTL_TOKEN; else minted for this command)')
      .option('--key <path>', 'private key for the minted token (env EXECTL_KEY)')
      .option('--json', 'print JSON, not text, on a terminal (indented and coloured there)')
      .addOption(
        new Option('--raw', 'print the answer byte for byte, even on a terminal').conflicts('json'),
      )
      .option('--no-open', 'browser: print the sign-in link without opening a browser')
      // Flags the service's commands take (`ls -l`) belong to the command line.
      .allowUnknownOption()
      .addHelpText(
        'after',
        `
One argument is sent as it is: it is a command line, quoted as in the service's
shell-like syntax. Several arguments are the command's words: each is quoted so the
service sees exactly those words. Put -- before a command line that uses a flag
exectl itself knows (-q, --url, --token, --key, --json, --raw, --help).

Without a token, one is minted with your SSH key that expires in 5 minutes and
allows exactly this command. Without --key, a 401 is tried again with each
further key (ssh-agent, then ~/.ssh); the key that worked is remembered for the
server and tried first next time (see KEYS in exectl(1)). On a terminal, the answer is shown as the readable
text the SSH front end shows (tables for lists); --json shows the JSON instead,
indented and coloured. Piped or redirected, the JSON is printed exactly as the
server sent it, with or without --json (--raw does that on a terminal too).
429 answers are retried after Retry-After; connection failures are retried only
for commands that change nothing (3 tries in all).

exectl run browser opens the dashboard's sign-in link in a browser ($BROWSER, else
open on macOS, else xdg-open under a graphical session) and prints it; --no-open only
prints it.

Exit codes:
${exitCodesHelp('0 success')}

Examples:
  exectl run whoami
  exectl run "ssh-key list"
  exectl run comment web "deployed at noon"
  exectl run -- ls -l --help`,
      );
  },
  run: (ctx, operands, options) => runRun(ctx, operands[0] as string[], options as RunOptions),
};
