import { ExectlError } from '../../errors.js';
import { suggestionsFor, suggestionsHeader } from '../../did-you-mean.js';
import { EXECTL_DIALECT, type Dialect } from '../../dialects.js';
import type { CommandDefinition, CommandNode, GroupDefinition } from './types.js';
import { pathWords, validateDefinition } from './validate-definition.js';

/** What {@link CommandRegistry.resolve} found: a node and the words typed after its path. */
interface Resolution<Deps> {
  /** A command, or a group when (and only when) the words ask for its `--help`. */
  node: CommandNode<Deps>;
  rest: string[];
}

class Node<Deps> implements CommandNode<Deps> {
  readonly byWord = new Map<string, Node<Deps>>();

  constructor(
    readonly path: string,
    readonly description: string,
    readonly usage: string,
    readonly definition: CommandDefinition<Deps> | undefined,
    readonly dialect: Dialect = EXECTL_DIALECT,
    readonly names: string[] = [path],
  ) {}

  get commandPath(): string {
    return this.definition?.path ?? this.path;
  }

  get children(): Node<Deps>[] {
    return [...this.byWord.values()];
  }
}

/**
 * The command tree. Paths are words separated by spaces; a parent must be registered before
 * its children, either as a command that also has subcommands (`team`, `team members`) or as a
 * pure group (`ssh-key` via {@link registerGroup}, then `ssh-key list`).
 *
 * Groups are not commands (SPEC §2: "first word(s) name no command" → 404). `ssh-key` alone
 * answers `unknown command: ssh-key`; `ssh-key frob` answers `unknown command: ssh-key frob`;
 * but `ssh-key --help` resolves to the group so the dispatcher can list its subcommands, the
 * same answer as `help ssh-key`.
 *
 * @example
 * const registry = new CommandRegistry<Deps>();
 * registry.register(helpCommand);
 * registry.registerGroup({ path: 'ssh-key', description: 'Manage your SSH keys' });
 * registry.register(sshKeyList);
 * registry.resolve(['ssh-key', 'list', '--json']); // { node: <ssh-key list>, rest: ['--json'] }
 */
export class CommandRegistry<Deps> {
  readonly #root = new Node<Deps>('', '', '', undefined);

  /**
   * Adds a command. Throws a plain Error (a startup bug) for a malformed definition, a
   * duplicate path or a missing parent.
   */
  register(definition: CommandDefinition<Deps>): void {
    validateDefinition(definition);
    const { parent, word } = this.#placeFor(definition.path);
    const node = new Node(definition.path, definition.description, definition.usage, definition);
    parent.byWord.set(word, node);
  }

  /**
   * Adds `alias` as another name of the registered command `of`, in `dialect` (SPEC §12's
   * `exe0-to-exe1`): it runs the same definition, its context names `dialect`, and a token
   * whose cmds list either name may run it under either.
   * Throws a plain Error (a startup bug) when `of` is not a command or `alias` is taken.
   */
  registerAlias(alias: string, of: string, dialect: Dialect): void {
    const target = this.lookup(pathWords(of));
    if (!(target instanceof Node) || target.definition === undefined) {
      throw new Error(`cannot alias "${alias}": "${of}" is not a command`);
    }
    const { parent, word } = this.#placeFor(alias);
    target.names.push(alias);
    const usage = target.usage.replace(of, alias);
    // `help` tells the two names apart: `… (the exe.dev name of svc0-to-svc1)`.
    const description =
      dialect.compat === null
        ? `${target.description} (another name of ${of})`
        : `${target.description} (the ${dialect.compat} name of ${of})`;
    const node = new Node(alias, description, usage, target.definition, dialect, target.names);
    parent.byWord.set(word, node);
  }

  /** Adds a path that only groups subcommands; same rules as {@link register}. */
  registerGroup(group: GroupDefinition): void {
    const { parent, word } = this.#placeFor(group.path);
    const usage = `${group.path} <subcommand>`;
    parent.byWord.set(word, new Node<Deps>(group.path, group.description, usage, undefined));
  }

  /**
   * Finds the LONGEST registered command path that prefixes `argv` (`team members x` →
   * `team members` + `['x']`; `team x` → `team` + `['x']`), or a group asked for `--help`.
   *
   * @throws ExectlError `unknown_command` `unknown command: <name>`, where `<name>` is what was
   *   typed up to and including the first word that matches nothing (`ssh-key frob`).
   */
  resolve(argv: readonly string[]): Resolution<Deps> {
    let node = this.#root;
    let depth = 0;
    let longest: Resolution<Deps> | undefined;
    for (const word of argv) {
      const child = node.byWord.get(word);
      if (child === undefined) break;
      node = child;
      depth += 1;
      if (child.definition !== undefined) longest = { node: child, rest: argv.slice(depth) };
    }
    const rest = argv.slice(depth);
    if (node.definition !== undefined) return { node, rest };
    if (node !== this.#root && asksForHelp(rest)) return { node, rest };
    if (longest !== undefined) return longest;
    const next = argv[depth];
    const typed = next === undefined || (depth > 0 && next.startsWith('-')) ? depth : depth + 1;
    throw unknownCommand(argv.slice(0, typed).join(' '), typed > depth ? node : undefined);
  }

  /**
   * The node at exactly this path (`['ssh-key', 'list']`), for `help <path>`.
   * @throws ExectlError `unknown_command` `unknown command: <path>`.
   */
  lookup(path: readonly string[]): CommandNode<Deps> {
    let node = this.#root;
    for (const [depth, word] of path.entries()) {
      const child = node.byWord.get(word);
      if (child === undefined) {
        throw unknownCommand(path.join(' '), depth === path.length - 1 ? node : undefined);
      }
      node = child;
    }
    if (node === this.#root) throw unknownCommand('');
    return node;
  }

  /** Top-level commands and groups, in registration order (`help`). */
  topLevel(): readonly CommandNode<Deps>[] {
    return this.#root.children;
  }

  /** Every command and group, depth first, parents before children (`help all`). */
  all(): readonly CommandNode<Deps>[] {
    const walk = (node: Node<Deps>): Node<Deps>[] =>
      node.children.flatMap((child) => [child, ...walk(child)]);
    return walk(this.#root);
  }

  #placeFor(path: string): { parent: Node<Deps>; word: string } {
    const words = pathWords(path);
    const word = words.pop()!;
    let parent = this.#root;
    for (const [index, w] of words.entries()) {
      const next = parent.byWord.get(w);
      if (next === undefined) {
        const missing = words.slice(0, index + 1).join(' ');
        throw new Error(`cannot register "${path}": register "${missing}" first`);
      }
      parent = next;
    }
    if (parent.byWord.has(word)) throw new Error(`"${path}" is already registered`);
    return { parent, word };
  }
}

/** True when the words before the first positional word (or `--`) include `--help`. */
function asksForHelp(words: readonly string[]): boolean {
  for (const word of words) {
    if (word === '--help') return true;
    if (word === '--' || !word.startsWith('-')) return false;
  }
  return false;
}

/**
 * SPEC §2's 404 (`unknown command: ssh-key lst`), with the nearest paths under `parent` in
 * `X-Exec-Suggest` when the last word of `name` is a likely typo of one (`ssh-key list`).
 */
function unknownCommand<Deps>(name: string, parent?: Node<Deps>): ExectlError {
  const typed = name.split(' ').at(-1) ?? '';
  const near =
    parent === undefined || typed.startsWith('-')
      ? []
      : suggestionsFor(typed, [...parent.byWord.keys()]).map(
          (word) => parent.byWord.get(word)!.path,
        );
  return new ExectlError('unknown_command', `unknown command: ${name}`, {
    hint: 'run "help" to list the commands',
    headers: suggestionsHeader(near),
  });
}
