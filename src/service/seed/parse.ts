// The `--seed` file (exectl-serve(1), SEED FILE): its shape, checked strictly. Every problem is
// one SeedFormatError naming the JSON path; nothing is applied from a file that fails here.
import { commandFailed } from '../../errors.js';
import type { PublicKey } from '../../token/keys.js';
import { parseRegistrableKey } from '../rules/registrable-key.js';
import {
  checkComment,
  checkEmail,
  checkKeyName,
  checkTag,
  checkVmName,
  quote,
  sameEmail,
} from '../rules/validate.js';
import {
  checkHeaderLine,
  checkHeaderName,
  checkIntegrationName,
  checkIntegrationType,
  checkTarget,
  parseAttachmentSpec,
  parseReflectionFields,
} from '../rules/integrations.js';
import { JsonAt, parseJsonDocument, type ObjectAt } from './json-at.js';
import { parseLimits } from './limits.js';
import type {
  AttachmentSpec,
  IntegrationType,
  ReflectionField,
  Visibility,
  VmLimitsRecord,
} from '../store/index.js';

/** A whole seed: the accounts to make exist, in file order. */
export interface Seed {
  accounts: SeedAccount[];
}

/**
 * One account. A list left out leaves that part of the account alone; a list given adds or
 * updates what it names and removes nothing. `path` names the entry in messages.
 */
export interface SeedAccount {
  path: string;
  email: string;
  keys: SeedKey[];
  integrations: SeedIntegration[];
  vms: SeedVm[];
  teamMembers: { email: string; path: string }[];
}

interface SeedKey {
  path: string;
  key: PublicKey;
  /** Given: the key is (re)named so. Absent: a new key gets the `ssh-key add` default name. */
  name: string | undefined;
  /** The tag a key is scoped to (`generate-api-key --tag`); absent: not scoped, or kept. */
  tag: string | undefined;
}

/** A VM; each absent field keeps the current value (or the `new` default on creation). */
export interface SeedVm {
  path: string;
  name: string;
  tags: string[] | undefined;
  comment: string | undefined;
  defaultPort: number | undefined;
  visibility: Visibility | undefined;
  env: Record<string, string> | undefined;
  /** Run once, when the seed creates the VM; never again. */
  setupScript: string | undefined;
  /** The limits given; the others keep their value (the defaults on creation). */
  limits: Partial<VmLimitsRecord> | undefined;
  /** Emails the VM is shared with (added when missing; none removed). */
  shares: string[] | undefined;
}

/** An integration; each absent field keeps the current value (or the default on creation). */
export interface SeedIntegration {
  path: string;
  name: string;
  type: IntegrationType;
  target: string | undefined;
  headers: string[] | undefined;
  /**
   * The names of headers whose values an export without `--with-secrets` left out: applying
   * warns for each the integration still lacks.
   */
  headersWithoutValues: string[];
  comment: string | undefined;
  attach: AttachmentSpec[] | undefined;
  /** A reflection integration's fields (`integrations add --fields`). */
  fields: ReflectionField[] | undefined;
}

const ACCOUNT_FIELDS = ['email', 'keys', 'vms', 'integrations', 'team_members'];
const KEY_FIELDS = ['key', 'name', 'tag'];
const VM_FIELDS = [
  'name',
  'tags',
  'comment',
  'default_port',
  'visibility',
  'env',
  'setup_script',
  'limits',
  'shares',
];
const INTEGRATION_FIELDS = [
  'name',
  'type',
  'target',
  'headers',
  'headers_without_values',
  'comment',
  'attach',
  'fields',
];
/** The variable names `new --env` accepts, so that the value reaches the VM's shell intact. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses and checks a seed file's text. Beyond each value's own rules, it refuses an email,
 * a VM name or a key that appears twice in the file, since the seed could not mean both.
 *
 * @throws SeedFormatError (`usage`) naming the JSON path, e.g.
 *   `accounts[0].vms[1].name: invalid vm name "Web": ...`.
 */
export function parseSeed(text: string): Seed {
  const root = parseJsonDocument(text).object(['accounts']);
  const accounts = root.required('accounts').array().map(parseAccount);
  refuseRepeats(
    accounts.map((a) => ({ at: `${a.path}.email`, id: foldAscii(a.email), what: a.email })),
    'account',
  );
  refuseRepeats(
    accounts.flatMap((a) => a.vms.map((v) => ({ at: v.path, id: v.name, what: `vm "${v.name}"` }))),
    'entry for',
  );
  refuseRepeats(
    accounts.flatMap((a) =>
      a.keys.map((k) => ({ at: k.path, id: k.key.fingerprint, what: `key ${k.key.fingerprint}` })),
    ),
    'entry for',
  );
  return { accounts };
}

function parseAccount(at: JsonAt): SeedAccount {
  const fields = at.object(ACCOUNT_FIELDS);
  const email = fields.required('email').check(checkEmail);
  const integrations = list(fields, 'integrations', parseIntegration);
  refuseRepeats(
    integrations.map((i) => ({ at: i.path, id: i.name, what: `integration "${i.name}"` })),
    'entry for',
  );
  const teamMembers = list(fields, 'team_members', (m) => ({
    email: m.check(checkEmail),
    path: m.path,
  }));
  for (const member of teamMembers) {
    if (sameEmail(member.email, email)) {
      new JsonAt(member.email, member.path).fail(`${email} owns this team already`);
    }
  }
  return {
    path: at.path,
    email,
    keys: list(fields, 'keys', parseKey),
    integrations,
    vms: list(fields, 'vms', parseVm),
    teamMembers,
  };
}

/**
 * `"ssh-ed25519 AAAA... c"`, or `{"key": "...", "name": "laptop", "tag": "ci"}` to manage the
 * name too, or to make a tag-scoped key.
 */
function parseKey(at: JsonAt): SeedKey {
  if (typeof at.value === 'string') {
    return { path: at.path, key: publicKey(at), name: undefined, tag: undefined };
  }
  const fields = at.object(KEY_FIELDS);
  const name = fields.optional('name')?.check(checkKeyName);
  const tag = fields.optional('tag')?.check(checkTag);
  return { path: at.path, key: publicKey(fields.required('key')), name, tag };
}

function publicKey(at: JsonAt): PublicKey {
  const line = at.string();
  try {
    return parseRegistrableKey(line);
  } catch (err) {
    return at.fail((err as Error).message);
  }
}

function parseVm(at: JsonAt): SeedVm {
  const fields = at.object(VM_FIELDS);
  const tags = optionalList(fields, 'tags', (t) => t.check(checkTag));
  const env = fields.optional('env');
  return {
    path: at.path,
    name: fields.required('name').check(checkVmName),
    tags: tags === undefined ? undefined : [...new Set(tags)].sort(),
    comment: fields.optional('comment')?.check(checkComment),
    defaultPort: fields.optional('default_port')?.integer(1024, 65535),
    visibility: fields.optional('visibility')?.check(visibility),
    env: env === undefined ? undefined : parseEnvObject(env),
    setupScript: fields.optional('setup_script')?.string(),
    limits: optional(fields, 'limits', parseLimits),
    shares: optionalList(fields, 'shares', (s) => s.check(checkEmail)),
  };
}

function visibility(text: string): Visibility {
  if (text === 'private' || text === 'public') return text;
  return reject(`expected "private" or "public", found ${quote(text)}`);
}

/** `{"KEY": "value"}`: what `new --env KEY=value` gives, each KEY a shell variable name. */
function parseEnvObject(at: JsonAt): Record<string, string> {
  const entries = at.entries().map(([key, value]): [string, string] => {
    if (!ENV_NAME.test(key)) {
      value.fail(
        `invalid variable name ${quote(key)}: use letters, digits and "_", not starting with a digit`,
      );
    }
    return [key, value.string()];
  });
  // fromEntries defines each key as an own property, `__proto__` included.
  return Object.fromEntries(entries);
}

function parseIntegration(at: JsonAt): SeedIntegration {
  const fields = at.object(INTEGRATION_FIELDS);
  // The same checks as the `integrations add` command, so a seed accepts what a user could type.
  const name = fields.required('name').check(checkIntegrationName);
  const type = fields.required('type').check(checkIntegrationType);
  const target = fields.optional('target');
  if (type === 'reflection' && target !== undefined)
    target.fail('a reflection integration has no target');
  const reflectionFields = fields.optional('fields');
  if (type !== 'reflection' && reflectionFields !== undefined)
    reflectionFields.fail('only a reflection integration has fields');
  return {
    path: at.path,
    name,
    type,
    target: target?.check(checkTarget),
    headers: optionalList(fields, 'headers', (h) => h.check(checkHeaderLine)),
    headersWithoutValues: list(fields, 'headers_without_values', (h) => h.check(checkHeaderName)),
    comment: fields.optional('comment')?.check(checkComment),
    attach: optionalList(fields, 'attach', (s) => s.check(parseAttachmentSpec)),
    fields: reflectionFields?.guard(() =>
      parseReflectionFields(
        reflectionFields
          .array()
          .map((f) => f.string())
          .join(','),
      ),
    ),
  };
}

/** An optional member, parsed; undefined when it is absent. */
function optional<T>(fields: ObjectAt, key: string, parse: (item: JsonAt) => T): T | undefined {
  const member = fields.optional(key);
  return member === undefined ? undefined : parse(member);
}

/** The items of an optional array member, each parsed; `[]` when it is absent. */
function list<T>(fields: ObjectAt, key: string, parse: (item: JsonAt) => T): T[] {
  return optionalList(fields, key, parse) ?? [];
}

function optionalList<T>(
  fields: ObjectAt,
  key: string,
  parse: (item: JsonAt) => T,
): T[] | undefined {
  return fields.optional(key)?.array().map(parse);
}

/** A value refused by one of this file's checks, as the service's validators refuse (422). */
function reject(message: string): never {
  throw commandFailed(message);
}

function refuseRepeats(items: { at: string; id: string; what: string }[], label: string): void {
  const seen = new Map<string, string>();
  for (const item of items) {
    const first = seen.get(item.id);
    if (first !== undefined) {
      new JsonAt(undefined, item.at).fail(`second ${label} ${item.what} (first at ${first})`);
    }
    seen.set(item.id, item.at);
  }
}

/** Emails compare as the store compares them: ASCII letters case-folded, nothing else. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
