// The JSON documents of the reflection interface (SPEC §5), built from stored records.
import {
  REFLECTION_FIELDS,
  type IntegrationRecord,
  type ReflectionField,
  type VmRecord,
} from '../store/index.js';
import { integrationHelp } from './urls.js';

/** SPEC §5's description of each field, in the order the index lists them. */
const FIELD_DESCRIPTIONS: Record<ReflectionField, string> = {
  email: 'owner email address',
  integrations: 'integrations available to this VM',
  tags: 'tags set on this VM',
  comment: 'comment set on this VM',
  default_port: "default proxy port for this VM (the port shared at the VM's public HTTPS address)",
};

/** Everything the documents of one VM are made of, read once per request. */
interface ReflectionView {
  vm: VmRecord;
  ownerEmail: string;
  /** The integrations attached to the VM (the reflection one included), by name. */
  integrations: readonly IntegrationRecord[];
  /** The VM's `{reflection_url}`. */
  reflectionUrl: string;
  /** The fields its reflection integrations open. */
  fields: ReadonlySet<ReflectionField>;
}

/**
 * The fields a VM may read: those opted into by any reflection integration attached to it (a
 * VM sees an integration when any of its specs matches, so two reflection integrations add
 * up), or null when none is attached and the whole interface is closed to the VM.
 */
export function openFields(
  integrations: readonly IntegrationRecord[],
): Set<ReflectionField> | null {
  const reflections = integrations.filter((i) => i.type === 'reflection');
  if (reflections.length === 0) return null;
  return new Set(reflections.flatMap((i) => i.reflectionFields));
}

/** The field a document path names (`/tags` → `tags`), or undefined for any other path. */
export function fieldOfPath(path: string): ReflectionField | undefined {
  return REFLECTION_FIELDS.find((field) => path === `/${field}`);
}

/** `GET {reflection_url}/`: who the VM is, and the paths it may read. */
export function indexDocument(view: ReflectionView) {
  return {
    name: view.vm.name,
    emoji: view.vm.emoji,
    paths: REFLECTION_FIELDS.filter((field) => view.fields.has(field)).map((field) => ({
      path: `/${field}`,
      description: FIELD_DESCRIPTIONS[field],
    })),
  };
}

/** `GET {reflection_url}/<field>`; the caller has checked that the field is open. */
export function fieldDocument(view: ReflectionView, field: ReflectionField) {
  const { vm } = view;
  switch (field) {
    case 'email':
      return { email: view.ownerEmail };
    case 'integrations':
      return {
        integrations: view.integrations.map((i) => ({
          name: i.name,
          type: i.type,
          comment: i.comment,
          help: integrationHelp(i.type, view.reflectionUrl, i.name),
        })),
      };
    case 'tags':
      return { tags: vm.tags };
    case 'comment':
      return { comment: vm.comment };
    case 'default_port':
      return { default_port: vm.defaultPort };
  }
}
