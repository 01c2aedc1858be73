/**
 * The command model shared by every front end. A command is one {@link CommandDefinition}: the
 * HTTP `/exec` endpoint, the SSH front end, `help` and `--help` all read the same object, so a
 * flag or an example is written once.
 *
 * A definition is plain data plus a `run` function that receives a {@link CommandContext} and
 * the parsed {@link CommandInput} and returns a {@link CommandOutput}. It never sees the
 * transport: it throws `ExectlError` (usually `commandFailed('vm "web" not found')`, 422) and
 * returns data; the front end picks the status and the rendering.
 */
import type { Dialect } from '../../dialects.js';
import type { ExectlError } from '../../errors.js';
import type { CommandRegistry } from './registry.js';
import type { FlagValues } from './flag-values.js';

/** The value of one parsed flag, by {@link FlagSpec.type}. */
export type FlagValue = string | boolean | string[];

/**
 * One flag of a command. `--help` and `--json` are accepted by every command and must not be
 * declared. Values: `--name value`, `--name=value`, `-n value` (or `--n value`); a boolean is
 * `--name` or `--name=true|false` (there is no `--no-name` form, so a boolean always defaults
 * to false); a `string[]` flag may be repeated and collects its values in order; a `string`
 * flag given twice is an error.
 */
export interface FlagSpec {
  /** Long name without dashes, at least two characters: `'name'` is typed `--name`. */
  name: string;
  /** One letter typed with one dash: `'l'` is typed `-l`. */
  short?: string;
  type: 'boolean' | 'string' | 'string[]';
  /**
   * Only on a `string[]` flag: each value is also a comma-separated list (`--tag=a,b`), as the
   * real service takes `--tag` and `--integration`.
   */
  commaList?: boolean;
  /** Value when the flag is absent. Booleans: false only; string[]: replaced, not appended to. */
  default?: string | string[] | false;
  /** One line shown by `--help`. */
  description: string;
}

/**
 * One positional argument. Required arguments come first; only the last may be `variadic`
 * (it then collects every remaining positional word, at least one when required).
 */
export interface ArgSpec {
  /** Shown in messages as `<name>`: `missing argument <vm>`. */
  name: string;
  required: boolean;
  variadic?: boolean;
  /**
   * Only on the last, variadic argument: once the arguments before it are filled, every
   * remaining word is taken verbatim, dashes included, so `ssh vm1 ls --help` runs `ls --help`
   * in the VM. One `--` right after the VM is dropped (`ssh vm1 -- ls`), as OpenSSH does.
   */
  raw?: boolean;
}

/**
 * Everything the arguments parser produced for one call. `args` holds the positional words in
 * order; a variadic last argument contributes all of its words (`rm a b c` → `['a','b','c']`).
 */
export interface CommandInput {
  flags: FlagValues;
  args: readonly string[];
}

/**
 * Who is calling, as established by the front end before dispatch (a verified token over
 * HTTP, the SSH key itself over SSH). Authorization reads `cmds` and `tag`.
 */
export interface Principal {
  accountId: number;
  email: string;
  userId: string;
  /** `SHA256:...` of the key that signed the token or opened the SSH session. */
  keyFingerprint: string;
  /** Effective command paths of the token (defaults applied); null: not limited (SSH). */
  cmds: readonly string[] | null;
  /**
   * The tag the signing key is scoped to (`generate-api-key --tag`): the caller sees and
   * touches only VMs carrying it, and every VM it makes gets it. Null: not scoped.
   */
  tag: string | null;
  /**
   * When the request's token expires (unix seconds): nothing it delegates may outlive it. Null:
   * the token never expires, or no token (SSH authenticates with the key itself).
   */
  exp: number | null;
  via: 'token' | 'ssh';
}

/** What a running command may use besides its input. */
export interface CommandContext<Deps> {
  principal: Principal;
  /** The service's collaborators (store, VM runtime, clock, ...), chosen by the composition root. */
  deps: Deps;
  /**
   * Aborted at the deadline (reason: the `timeout` ExectlError) or when the front end gives up
   * (client gone, server shutting down). A command that started processes must kill them then.
   */
  readonly signal: AbortSignal;
  /** Correlates this command with the request log line. */
  requestId: string;
  /** The registry this command was dispatched from (used by `help`). */
  registry: CommandRegistry<Deps>;
  /**
   * The dialect of the name the command was called by (src/dialects.ts): exectl's, or another's
   * for an alias such as `exe0-to-exe1`, whose tokens it then answers with (`exe1.…`).
   */
  dialect: Dialect;
  /**
   * The client's standard input, read to its end, for a command that takes a value from it
   * (`cat script | ssh host defaults write dev.exe new.setup-script`); undefined where the
   * front end has none (/exec, a pty). See {@link ReadInput}.
   */
  readonly readInput: ReadInput | undefined;
}

/**
 * Reads the client's input to its end, at most `limit` bytes of it: resolves with them, or
 * with null once more than `limit` came (the rest is then thrown away as it comes).
 */
export type ReadInput = (limit: number) => Promise<Buffer | null>;

/**
 * Receives raw output bytes of a streaming command, in the order they were produced. `write`
 * returns a promise when the client is behind: the producer writes nothing more until it
 * settles, so at most about 1 MiB waits per stream (SPEC §9).
 */
interface StreamSink {
  write(chunk: Buffer): void | Promise<void>;
}

/**
 * The plain data a command answers with; JSON over HTTP, JSON or text over SSH (the text is the
 * command path's view in src/text-views/, shared with the client).
 */
export interface JsonOutput {
  kind: 'json';
  data: unknown;
}

/**
 * Raw interleaved stdout/stderr plus an exit code (`ssh <vm> <command>`, SPEC §2). Nothing runs
 * until the front end calls `start` (once): HTTP buffers up to 1 MiB to choose between a
 * status with `X-Exec-Exit` and a streamed answer with a trailer; SSH pipes chunks straight to
 * the channel. The dispatch deadline keeps running until `start` settles.
 */
export interface StreamOutput {
  kind: 'stream';
  start(sink: StreamSink): Promise<{ exitCode: number }>;
  /** The VM the program runs in: a piped session's log line names it, as a VM session's does. */
  readonly vm: string;
  /**
   * The same program with the client's standard input and a standard error of its own, as an
   * SSH session into the VM runs it (SPEC §6a): for a front end that can carry both (an SSH
   * exec request without a pty), called once instead of `start`. No deadline applies once it is
   * called, as for an {@link InteractiveOutput}: the program ends on `pipes.signal`. Absent: the
   * command reads no input.
   */
  piped?(pipes: ProgramPipes): Promise<ProgramExit>;
}

/**
 * A client's streams for a {@link StreamOutput.piped} program, with backpressure both ways: the
 * program reads `input` to its end and writes `output` and `errors`, ending neither.
 */
export interface ProgramPipes {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly errors: NodeJS.WritableStream;
  /** Hangs the program up (client gone, interrupted, server stopping). */
  readonly signal: AbortSignal;
}

/**
 * How a piped program ended: its exit status, or the signal that ended it (`TERM`, no `SIG`).
 * It rejects with `pipes.signal`'s reason when that hung it up.
 */
export interface ProgramExit {
  exitCode: number;
  signal?: string;
}

/**
 * The client's terminal, handed to an {@link InteractiveOutput} by a front end that has one
 * (SSH with a pty). The program reads keystrokes from `input` and writes the screen to
 * `output`, both raw bytes, with backpressure; it neither ends them nor keeps them after it
 * ends.
 */
export interface Terminal {
  /** Size in characters (0 when the client does not know) and TERM, from the pty request. */
  readonly cols: number;
  readonly rows: number;
  readonly term: string;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Ends the program: the client went away or the server is stopping. */
  readonly signal: AbortSignal;
}

/** A program running on a {@link Terminal}. */
export interface InteractiveSession {
  /** The client's window changed size. */
  resize(cols: number, rows: number): void;
  /** Its exit code; rejects with `terminal.signal`'s reason when that ended it. */
  readonly exited: Promise<{ exitCode: number }>;
}

/**
 * An interactive program on the client's terminal (`ssh <vm>` without a command: a shell).
 * The command has checked everything (the VM exists and is visible) before returning it;
 * nothing runs until the front end calls `start` (once). A front end without a terminal
 * (HTTP, SSH without a pty) throws `refusal` instead. No deadline applies: a shell lasts as
 * long as its user keeps it, and `ctx.signal` no longer fires once `run` has returned, so the
 * program must end on `terminal.signal`.
 */
export interface InteractiveOutput {
  kind: 'interactive';
  /** The 422 for a front end with no terminal to give, saying what to do instead. */
  refusal: ExectlError;
  start(terminal: Terminal): InteractiveSession;
}

export type CommandOutput = JsonOutput | StreamOutput | InteractiveOutput;

/** One command of the tree, e.g. `ssh-key list`. */
export interface CommandDefinition<Deps> {
  /** Words separated by single spaces: `'ssh-key list'`. Its parent path must exist first. */
  path: string;
  /** One line for `help`. */
  description: string;
  /** Synopsis as in SPEC §3: `'tag [-d] <vm> <tag>...'`. */
  usage: string;
  flags: readonly FlagSpec[];
  args: readonly ArgSpec[];
  /** Complete command lines a user can copy. */
  examples: readonly string[];
  /** True when it changes state: such a command is never retried automatically. */
  mutates: boolean;
  run(ctx: CommandContext<Deps>, input: CommandInput): Promise<CommandOutput>;
}

/**
 * A path that only groups subcommands (`ssh-key`, `share`): listed by `help`, answers
 * `ssh-key --help`, but is not a command, so `ssh-key` alone is `unknown command: ssh-key`.
 */
export interface GroupDefinition {
  path: string;
  description: string;
}

/**
 * One node of the command tree as the registry exposes it: a command (maybe also a parent,
 * like `team`) or a pure group (`definition` undefined).
 */
export interface CommandNode<Deps> {
  readonly path: string;
  readonly description: string;
  /** The definition's usage, or `<group> <subcommand>` for a group. */
  readonly usage: string;
  readonly definition: CommandDefinition<Deps> | undefined;
  /** The path of the command itself: {@link path}, except for an alias (`exe0-to-exe1`). */
  readonly commandPath: string;
  /** Every name a token's cmds may list to run it: its path and its aliases (SPEC §12). */
  readonly names: readonly string[];
  /** The dialect of the name it was reached by (src/dialects.ts): exectl's but for an alias. */
  readonly dialect: Dialect;
  /** Direct subcommands, in registration order. */
  readonly children: readonly CommandNode<Deps>[];
}
