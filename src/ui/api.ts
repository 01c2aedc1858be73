// The page's only way to the server: the dashboard's JSON API, which is the service's own
// command dispatcher (a command line in, the command's JSON out, as POST /exec answers).

/** A failed call: the HTTP status and the server's one-line message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

async function post(path: string, body: string): Promise<unknown> {
  const res = await fetch(path, {
    method: 'POST',
    body,
    credentials: 'same-origin',
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
  const text = await res.text();
  let data: unknown = text;
  try {
    data = JSON.parse(text);
  } catch {
    // A raw answer (`ssh <vm> <command>`): the text itself.
  }
  if (!res.ok) {
    const message =
      typeof data === 'object' && data !== null && 'error' in data
        ? String((data as { error: unknown }).error)
        : `HTTP ${res.status}`;
    throw new ApiError(res.status, message, data);
  }
  return data;
}

/** Runs one command line through the dispatcher and resolves with its JSON. */
export function run<T>(line: string): Promise<T> {
  return post('/_/api/exec', line) as Promise<T>;
}

/** A word quoted for the service's command-line lexer: any text stays one word. */
export function q(word: string): string {
  return /^[A-Za-z0-9._:@/=,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One request of the signed-in account, as the live log lists it. */
export interface RequestRow {
  seq: number;
  time: string;
  request_id: string;
  via: string;
  key: string;
  command: string;
  status: number;
  duration_ms: number;
}

/** The account's requests after `since` (a `seq`). */
export async function requestsSince(since: number): Promise<RequestRow[]> {
  const data = (await post(`/_/api/log?since=${since}`, '')) as { requests: RequestRow[] };
  return data.requests;
}

/** What `exectl inspect --json` says of `token`, checked against the account's own keys. */
export function inspect(token: string): Promise<Record<string, unknown>> {
  return post('/_/api/inspect', token) as Promise<Record<string, unknown>>;
}

/** How many seconds the session's token has left (null: no end): no token made here outlives it. */
export async function sessionTokenSecondsLeft(): Promise<number | null> {
  const data = (await post('/_/api/session', '')) as { token_expires_in: number | null };
  return data.token_expires_in;
}

/** Ends this browser's session. */
export function signOut(): Promise<unknown> {
  return post('/_/api/signout', '');
}
