import { commandFailed } from '../../../errors.js';
import { refuseForbiddenTarget, targetPolicyOf } from '../../integrations/target-policy.js';
import { REFLECTION_FIELDS, type IntegrationType } from '../../store/index.js';
import { json, type ServiceCommand } from '../shared/command.js';
import { checkComment } from '../../rules/validate.js';
import { newAttachments } from './attach-spec.js';
import {
  checkHeaderLine,
  checkIntegrationName,
  checkIntegrationType,
  checkTarget,
  parseReflectionFields,
} from '../../rules/integrations.js';
import { integrationView } from './view.js';

/**
 * `integrations add <type> --name N [--target URL] [--header K:V]... [--comment C]
 * [--attach SPEC]... [--fields LIST]` — creates an integration of the caller. Every type but
 * `reflection` forwards to `--target` and adds the `--header` lines on the way; a reflection
 * integration has neither, and `--fields` chooses which reflection paths it opens (default:
 * all). Without `--attach` no VM sees it yet (but for a tag-scoped key's: it gets `tag:T`). Answers the integration as `integrations list`.
 */
export const integrationsAddCommand: ServiceCommand = {
  path: 'integrations add',
  description: 'Add an integration: reflection, llm, github or http-proxy',
  usage:
    'integrations add <type> --name N [--target URL] [--header K:V]... [--comment C] [--attach SPEC]... [--fields LIST]',
  flags: [
    { name: 'name', type: 'string', description: 'Name of the integration (required)' },
    {
      name: 'target',
      type: 'string',
      description: 'http(s) URL requests are forwarded to (required except for reflection)',
    },
    {
      name: 'header',
      type: 'string[]',
      description: '"Name: value" added to every forwarded request, repeatable; kept secret',
    },
    { name: 'comment', type: 'string', description: 'A comment, at most 200 bytes' },
    {
      name: 'attach',
      type: 'string[]',
      description: 'Which VMs see it: auto:all, tag:<tag> or vm:<name>, repeatable',
    },
    {
      name: 'fields',
      type: 'string',
      description: `reflection only: the paths it opens, comma-separated (default: ${REFLECTION_FIELDS.join(',')})`,
    },
  ],
  args: [{ name: 'type', required: true }],
  examples: [
    "integrations add llm --name openai --target https://api.openai.com --header 'Authorization: Bearer sk-...' --attach tag:ai",
    "integrations add github --name gh --target https://github.com --header 'Authorization: Basic <base64 of x-access-token:TOKEN>' --attach vm:web",
    'integrations add reflection --name reflection-basic --fields email,tags --attach tag:ci',
  ],
  mutates: true,
  async run(ctx, input) {
    const { flags } = input;
    const type = checkIntegrationType(input.args[0] ?? '');
    const name = flags.string('name');
    if (name === undefined) throw commandFailed('missing flag --name');
    checkIntegrationName(name);
    const target = checkTargetFor(type, flags.string('target'));
    const headers = flags.strings('header').map(checkHeaderLine);
    if (type === 'reflection' && headers.length > 0) {
      throw commandFailed('a reflection integration has no headers');
    }
    const fieldsText = flags.string('fields');
    if (type !== 'reflection' && fieldsText !== undefined) {
      throw commandFailed('--fields applies to reflection integrations only');
    }
    const comment = checkComment(flags.string('comment') ?? '');
    const attachments = newAttachments(ctx, flags.strings('attach'));
    // Last: it may ask DNS, which only a target that passed every other check deserves.
    if (target !== null) await refuseForbiddenTarget(target, targetPolicyOf(ctx.deps));
    const created = ctx.deps.store.createIntegration({
      accountId: ctx.principal.accountId,
      name,
      type,
      comment,
      target,
      headers,
      attachments,
      ...(fieldsText === undefined ? {} : { reflectionFields: parseReflectionFields(fieldsText) }),
    });
    return json(integrationView(ctx, created));
  },
};

/** A reflection integration has no target; every other type needs one. */
function checkTargetFor(type: IntegrationType, target: string | undefined): string | null {
  if (type === 'reflection') {
    if (target !== undefined) throw commandFailed('a reflection integration has no target');
    return null;
  }
  if (target === undefined)
    throw commandFailed(`missing flag --target: ${type} integrations forward requests to it`);
  return checkTarget(target);
}
