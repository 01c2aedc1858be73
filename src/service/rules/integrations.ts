// Checks of what users type into the integrations commands. Each failure is one 422 sentence
// naming the value, except a header's value, which is a secret and is never echoed back.
import { commandFailed } from '../../errors.js';
import { RESERVED_HEADER_NAMES } from '../integrations/headers.js';
import {
  INTEGRATION_TYPES,
  REFLECTION_FIELDS,
  type AttachmentSpec,
  type IntegrationType,
  type ReflectionField,
} from '../store/index.js';
import { checkTag, checkVmName, quote } from './validate.js';

/** Integration names: tag-like words (they appear in URLs, `{reflection_url}/i/<name>`). */
const INTEGRATION_NAME = /^[a-z][a-z0-9_-]{0,62}$/;
/** An HTTP field name: a token (RFC 9110 §5.1). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * A field value of visible ASCII, spaces and tabs (SPEC §6): no control character, so no second
 * header can be smuggled in, and nothing outside ASCII, which node refuses to send.
 */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** Whether a header's value may be sent as it is (see {@link checkHeaderLine}). */
export function isSendableHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
}

/** @throws 422 `invalid header name "X"` (a name alone, as an export without secrets lists it) */
export function checkHeaderName(name: string): string {
  if (!HEADER_NAME.test(name)) throw commandFailed(`invalid header name ${quote(name)}`);
  return name;
}

/** @throws 422 `invalid integration name "X": ...` */
export function checkIntegrationName(name: string): string {
  if (!INTEGRATION_NAME.test(name)) {
    throw commandFailed(
      `invalid integration name ${quote(name)}: use 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter`,
    );
  }
  return name;
}

/** @throws 422 `unknown integration type "x" (known: reflection, llm, github, http-proxy)` */
export function checkIntegrationType(type: string): IntegrationType {
  const known: readonly string[] = INTEGRATION_TYPES;
  if (!known.includes(type)) {
    throw commandFailed(`unknown integration type ${quote(type)} (known: ${known.join(', ')})`);
  }
  return type as IntegrationType;
}

/**
 * A target: an absolute http(s) URL without credentials, query or fragment. Credentials
 * belong in `--header`, where they stay hidden (the target is shown by `integrations list`);
 * a query or fragment could not be combined with the paths the VM asks for.
 *
 * @throws 422 `invalid target "x": ...`
 */
export function checkTarget(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // Only the scheme and host are echoed: a refused URL may hold a credential.
  const shown = url === undefined ? quote(text) : quote(`${url.protocol}//${url.host}`);
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw commandFailed(`invalid target ${shown}: expected an http:// or https:// URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw commandFailed(`invalid target ${shown}: put credentials in --header, not in the URL`);
  }
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
    throw commandFailed(`invalid target ${shown}: a target has no query or fragment`);
  }
  return text;
}

/**
 * A `--header` line, `Name: value`. The value is a secret: messages name the header only.
 *
 * @throws 422 `invalid header: expected "Name: value"`, `invalid header name "X"`,
 *   `header "Host" is set by the proxy and cannot be configured`, or
 *   `invalid value for header "X": only visible ASCII characters, spaces and tabs are allowed`.
 */
export function checkHeaderLine(line: string): string {
  const colon = line.indexOf(':');
  if (colon < 0) throw commandFailed('invalid header: expected "Name: value"');
  const name = line.slice(0, colon);
  if (!HEADER_NAME.test(name)) throw commandFailed(`invalid header name ${quote(name)}`);
  if (RESERVED_HEADER_NAMES.has(name.toLowerCase())) {
    throw commandFailed(`header ${quote(name)} is set by the proxy and cannot be configured`);
  }
  if (!isSendableHeaderValue(line.slice(colon + 1))) {
    throw commandFailed(
      `invalid value for header ${quote(name)}: only visible ASCII characters, spaces and tabs are allowed`,
    );
  }
  return line;
}

/**
 * The format of an attachment spec (SPEC §5). Whether a `vm:` names the caller's VM is
 * checked by `attach` itself.
 *
 * @throws 422 `invalid attachment "x": expected auto:all, tag:<tag> or vm:<name>`, or the tag
 *   or VM name message.
 */
export function parseAttachmentSpec(text: string): AttachmentSpec {
  if (text === 'auto:all') return text;
  if (text.startsWith('tag:')) return `tag:${checkTag(text.slice(4))}`;
  if (text.startsWith('vm:')) return `vm:${checkVmName(text.slice(3))}`;
  throw commandFailed(
    `invalid attachment ${quote(text)}: expected auto:all, tag:<tag> or vm:<name>`,
  );
}

/**
 * `--fields email,tags`: the reflection fields to open, comma-separated, each written with or
 * without its leading `/` as the index shows it; `''` opens none. Answered in SPEC order.
 *
 * @throws 422 `unknown reflection field "x" (known: email, integrations, tags, comment,
 *   default_port)`.
 */
export function parseReflectionFields(text: string): ReflectionField[] {
  const known: readonly string[] = REFLECTION_FIELDS;
  const wanted = new Set<string>();
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const field = item.startsWith('/') ? item.slice(1) : item;
    if (!known.includes(field)) {
      throw commandFailed(`unknown reflection field ${quote(item)} (known: ${known.join(', ')})`);
    }
    wanted.add(field);
  }
  return REFLECTION_FIELDS.filter((field) => wanted.has(field));
}
