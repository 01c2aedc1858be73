import { ExectlError } from '../../errors.js';
import { parseArgs } from './args.js';
import type { Dialect } from '../../dialects.js';
import { authorize } from './authorize.js';
import { authorizeTagScope } from '../rules/tag-scope.js';
import { startDeadline, type Deadline } from './deadline.js';
import type { StopSubscription } from './stop.js';
import type { FaultTable } from './faults.js';
import { commandHelp } from './help-doc.js';
import { helpView, textViewFor, type TextView } from '../../text-views/index.js';
import type { FlagValues } from './flag-values.js';
import { lexCommandLine } from '../../shell-words.js';
import type { CommandRegistry } from './registry.js';
import type {
  CommandContext,
  CommandNode,
  CommandOutput,
  Principal,
  ReadInput,
  StreamOutput,
} from './types.js';

/** The command whose permission `<group> --help` needs, as `help <group>` does. */
const HELP_PATH = 'help';

interface DispatchOptions {
  /** The command's time limit (`ServiceConfig.commandDeadlineMs`: 30000 per SPEC §2). */
  deadlineMs: number;
  /** Passed to the command as `ctx.requestId`. */
  requestId: string;
  /**
   * The front end's reasons to stop the command early (client gone, server stopping): the
   * command's signal aborts and the dispatch rejects with the reason. `stopWhenAborted(signal)`
   * makes one of an AbortSignal.
   */
  stopWhen?: StopSubscription;
  /**
   * Called once the command path is known (before authorization), so the front end can log
   * the path of a request that then fails with 403, 422 or 504.
   */
  onResolved?: (path: string) => void;
  /** Injected failures (SPEC §10), consulted once the command is authorized; see faults.ts. */
  faults?: FaultTable | undefined;
  /** The client's standard input, where the front end has one (`ctx.readInput`). */
  readInput?: ReadInput | undefined;
}

/** A command that ran (or a help that answered): what the front end writes back. */
export interface DispatchResult {
  /** The command path that ran, for the request log (`ssh-key list`). */
  path: string;
  /**
   * `json`: render `data` (200). `stream`: call `start` once; the deadline still applies and
   * `start` rejects with the `timeout` error when it passes (its `piped` form, when it has one
   * and is called instead, runs without one). `interactive`: start it on the client's terminal,
   * or throw its `refusal` without one; no deadline applies to it.
   */
  output: CommandOutput;
  /** `--json` was given: SSH renders JSON instead of text (HTTP always renders JSON). */
  json: boolean;
  /**
   * The readable form of `output.data` for `renderText`: the command's view in src/text-views/
   * with the flags given, or undefined for the generic text.
   */
  textRenderer: ((data: unknown, width: number | undefined) => string) | undefined;
}

/**
 * The one path of every command, for the HTTP and SSH front ends alike. In order:
 * 1. lex the line — 400 `invalid command syntax: ...`; no words at all — 400 `missing command`;
 * 2. resolve the longest command path — 404 `unknown command: <name>`;
 * 3. authorize the path against `principal.cmds` (for `ssh`, with the VM argument) — 403;
 *    `<group> --help` needs `help`, as `help <group>` does; a tag-scoped key is refused the
 *    commands it may never run (rules/tag-scope.ts) — 403;
 * 4. parse flags and arguments; `--help` answers the command's help here, running nothing;
 *    bad arguments — 422;
 * 5. run the command under `options.deadlineMs` — 504 `command timed out after 30s` (an
 *    interactive output is exempt once returned: see `InteractiveOutput`); an injected fault
 *    (`options.faults`) waits or fails here, in its place.
 *
 * Errors are thrown, never returned: `ExectlError`s carry their status; anything else is a bug
 * in a command and propagates unchanged for the front end's funnel (500). A NUL byte or an
 * oversized body is the front end's check (SPEC §2), made before calling this.
 *
 * @example
 * const { path, output } = await dispatch(registry, 'ssh-key list', principal, deps, {
 *   deadlineMs: config.commandDeadlineMs,
 *   requestId,
 *   stopWhen: stopWhenAborted(clientGone),
 *   onResolved: (p) => (logLine.path = p),
 * });
 * if (output.kind === 'json') res.end(renderJson(output.data));
 */
export async function dispatch<Deps>(
  registry: CommandRegistry<Deps>,
  line: string,
  principal: Principal,
  deps: Deps,
  options: DispatchOptions,
): Promise<DispatchResult> {
  const argv = lexCommandLine(line);
  if (argv.length === 0) {
    throw new ExectlError('bad_request', 'missing command', {
      hint: 'send a command line such as "help"',
    });
  }
  const { node, rest } = registry.resolve(argv);
  options.onResolved?.(node.path);
  const definition = node.definition;
  if (definition === undefined) {
    // The registry resolves a group only for `<group> --help`.
    authorize(principal.cmds, HELP_PATH, []);
    return helpAnswer(node, rest.includes('--json'));
  }

  const parsed = parseArgs(definition, rest);
  authorize(principal.cmds, node.path, parsed.input.args, node.names);
  authorizeTagScope(principal, node.commandPath);
  if (parsed.help) return helpAnswer(node, parsed.json);
  if (parsed.error !== undefined) throw parsed.error;

  const deadline = startDeadline(options.deadlineMs, options.stopWhen);
  // A request stopped before it got here (its client already gone) starts nothing.
  deadline.throwIfExpired();
  const fault = options.faults?.take(node.commandPath);
  const ctx = new DispatchedContext(
    principal,
    deps,
    deadline,
    options.requestId,
    registry,
    node.dialect,
    options.readInput,
  );
  let output: CommandOutput;
  try {
    // Under the deadline like the command itself: a fault's delay can time a request out.
    if (fault !== undefined) await deadline.race(fault);
    output = await deadline.race(definition.run(ctx, parsed.input));
  } catch (err) {
    deadline.clear();
    throw err;
  }
  // Only a stream keeps the clock running. An interactive program (a shell) lasts as long as
  // its user keeps it: 30 s would cut every session, and it ends with its terminal instead.
  if (output.kind !== 'stream') deadline.clear();
  const view = textViewFor(node.commandPath);
  return {
    path: node.path,
    output: output.kind === 'stream' ? underDeadline(output, deadline) : output,
    json: parsed.json,
    textRenderer: view === undefined ? undefined : renderWith(view, parsed.input.flags),
  };
}

/**
 * What a command receives. A class for its `signal` getter: the AbortSignal is made only for a
 * command that reads it (most never do), and an object literal with a getter costs V8 about
 * 20 times more to create than a class instance (measured on Node 20).
 */
class DispatchedContext<Deps> implements CommandContext<Deps> {
  readonly #deadline: Deadline;

  constructor(
    readonly principal: Principal,
    readonly deps: Deps,
    deadline: Deadline,
    readonly requestId: string,
    readonly registry: CommandRegistry<Deps>,
    readonly dialect: Dialect,
    readonly readInput: ReadInput | undefined,
  ) {
    this.#deadline = deadline;
  }

  get signal(): AbortSignal {
    return this.#deadline.signal;
  }
}

function helpAnswer(node: CommandNode<unknown>, json: boolean): DispatchResult {
  const help = commandHelp(node);
  return {
    path: node.path,
    output: { kind: 'json', data: help },
    json,
    textRenderer: renderWith(helpView, undefined),
  };
}

/**
 * `view` bound to the flags of its command that it reads and that were given; the front end
 * gives the width of its client's terminal (undefined: not a terminal).
 */
function renderWith(
  view: TextView,
  flags: FlagValues | undefined,
): (data: unknown, width: number | undefined) => string {
  const given = new Set(view.flags.filter((f) => flags?.boolean(f.name)).map((f) => f.name));
  return (data, width) => view.render(data, given, width);
}

/**
 * The same stream, still bound by the deadline: `start` rejects with the timeout error when
 * it passes, and output written after that is dropped (the front end has already answered).
 * The sink's backpressure passes through. Its `piped` form, taken instead, stops the clock
 * first: a session lasts as long as its client keeps it (SPEC §6a).
 */
function underDeadline(output: StreamOutput, deadline: Deadline): StreamOutput {
  const { piped } = output;
  return {
    kind: 'stream',
    vm: output.vm,
    ...(piped === undefined
      ? {}
      : {
          piped(pipes) {
            deadline.clear();
            return piped.call(output, pipes);
          },
        }),
    async start(sink) {
      const guarded = {
        write: (chunk: Buffer) => (deadline.expired ? undefined : sink.write(chunk)),
      };
      try {
        return await deadline.race(output.start(guarded));
      } finally {
        deadline.clear();
      }
    },
  };
}
