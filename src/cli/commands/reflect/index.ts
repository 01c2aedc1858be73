// `exectl reflect [PATH]` (SPEC §5, §8): inside a VM, read the VM's metadata from the
// reflection interface at EXECTL_REFLECTION_URL. No token: the URL's secret is the credential.
import type { Command } from 'commander';
import { ExectlError } from '../../../errors.js';
import type { CliCommand, CommandOutcome } from '../../command.js';
import type { CliContext } from '../../context.js';
import { clientCodeForStatus } from '../../exec/answer.js';
import { callHttp, type HttpResponse } from '../../exec/http.js';
import { jsonStyleFor, prettyJson } from '../../json-pretty.js';

/**
 * The address of `path` (`/`, `/email`, or `email`) under the reflection URL `base`, and the
 * part of it that may be shown in messages: the origin, since the path holds the VM's secret.
 *
 * @throws ExectlError `usage` when `base` is not an http(s) URL.
 */
function reflectionAddress(base: string, path = '/'): { url: string; shown: string } {
  let parsed: URL | undefined;
  try {
    parsed = new URL(base);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ExectlError('usage', 'EXECTL_REFLECTION_URL is not an http:// URL', {
      hint: 'it is set by exectl inside a VM; do not change it',
    });
  }
  const suffix = path.startsWith('/') ? path : `/${path}`;
  return { url: `${base.replace(/\/+$/, '')}${suffix}`, shown: parsed.origin };
}

/** Prints the reflection document at `path`: indented and coloured on a terminal. */
async function runReflect(ctx: CliContext, path: string | undefined): Promise<CommandOutcome> {
  const base = ctx.env.EXECTL_REFLECTION_URL;
  if (base === undefined || base === '') {
    throw new ExectlError('usage', 'not inside an exectl VM', {
      hint: 'EXECTL_REFLECTION_URL is not set',
    });
  }
  const { url, shown } = reflectionAddress(base, path);
  const response = await callHttp(url, `the reflection interface at ${shown}`, {
    method: 'GET',
    unreachableHint: 'the exectl server that runs this VM may have stopped',
  });
  if (response.status !== 200) throw reflectionError(response, path ?? '/');
  const text = response.body.toString('utf8');
  const pretty = ctx.stdout.isTTY === true ? prettyJson(text, await jsonStyleFor(ctx)) : undefined;
  ctx.stdout.write(pretty ?? response.body);
  return undefined;
}

/** 403 (a field this VM does not offer) exits 4, 404 (no such path) exits 5. */
function reflectionError(response: HttpResponse, path: string): ExectlError {
  const code = clientCodeForStatus(response.status);
  const message = errorMessage(response) ?? `the reflection interface answered ${response.status}`;
  const hint =
    response.status === 403
      ? `the VM's reflection integration does not offer ${path}`
      : response.status === 404
        ? 'run `exectl reflect` to list the paths'
        : 'check the server log';
  return new ExectlError(code, message, { hint });
}

function errorMessage(response: HttpResponse): string | undefined {
  try {
    const body = JSON.parse(response.body.toString('utf8')) as { error?: unknown } | null;
    return typeof body?.error === 'string' ? body.error : undefined;
  } catch {
    return undefined;
  }
}

export const command: CliCommand = {
  declare(cmd: Command) {
    cmd
      .description("inside a VM: read the VM's metadata from the reflection interface")
      .argument('[path]', 'the field to read, e.g. /email (default: / lists them)')
      .addHelpText(
        'after',
        `
Reads EXECTL_REFLECTION_URL, which exectl sets inside every VM. Paths: / (the
index), /email, /integrations, /tags, /comment, /default_port.

Exit codes: 0 success, 2 not inside a VM, 4 the field is not offered to this VM,
5 unknown path, 8 unreachable.

Examples:
  exectl reflect
  exectl reflect /tags`,
      );
  },
  run: (ctx, operands) => runReflect(ctx, operands[0] as string | undefined),
};
