// The body of a VM's `POST /gateway/email/send` (SPEC §4b): `{"to","subject","body"}`, every
// field a string and required, nothing else. It comes from inside a tenant's VM: parsed
// strictly, never interpreted.
import { ExectlError } from '../../errors.js';

/** The largest request body the gateway reads. */
export const MAX_SEND_BYTES = 64 * 1024;
/** The longest subject (a mail header line's own limit, RFC 5322 §2.1.1). */
const MAX_SUBJECT = 998;

/** What a VM asks to send. */
export interface SendRequest {
  to: string;
  subject: string;
  body: string;
}

/**
 * The request in `text`.
 *
 * @throws usage naming what is wrong: not a JSON object, a field missing, not a string or
 *   unknown, a subject with a line break or over 998 characters.
 */
export function parseSendRequest(text: string): SendRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad('the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad('the body is not a JSON object');
  }
  const fields = value as Record<string, unknown>;
  const extra = Object.keys(fields).find((name) => !['to', 'subject', 'body'].includes(name));
  if (extra !== undefined) throw bad(`unknown field ${JSON.stringify(extra.slice(0, 64))}`);
  const field = (name: keyof SendRequest): string => {
    const given = fields[name];
    if (given === undefined) throw bad(`"${name}" is required`);
    if (typeof given !== 'string') throw bad(`"${name}" must be a string`);
    return given;
  };
  const request = { to: field('to'), subject: field('subject'), body: field('body') };
  if (/[\r\n]/.test(request.subject)) throw bad('"subject" must be one line');
  if (request.subject.length > MAX_SUBJECT) {
    throw bad(`"subject" is over ${MAX_SUBJECT} characters`);
  }
  return request;
}

function bad(what: string): ExectlError {
  return new ExectlError('usage', `${what}: send {"to","subject","body"}, all strings`);
}
