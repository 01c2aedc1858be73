// The readable form of an inspect report: one `label  value` line per fact, then warnings.
// Plain and stable when piped; coloured on a TTY.
import { printable, type Style } from '../../output.js';
import type { InspectReport, TimeField } from '../../../inspection/report.js';

const LABEL_WIDTH = 11;

export function renderReport(
  report: InspectReport,
  style: Style,
  verifyFile: string | undefined,
): string {
  const spelled = report.compat === null ? '' : ` (spelled as ${report.compat} does)`;
  const rows: [string, string][] = [['kind', `${report.kind ?? 'unknown'}${spelled}`]];
  if (report.kind === 'svc1') {
    rows.push([
      'valid',
      'unknown: a svc1 token is opaque, only the server that issued it can check it',
    ]);
  } else {
    rows.push(['valid', validText(report, style)], ['payload', printable(report.payload ?? '')]);
    if (report.vm === null) rows.push(['cmds', printable(cmdsText(report))]);
    else rows.push(['vm', `${report.vm} (a VM token for its proxy: cmds do not apply)`]);
    rows.push(
      ['exp', timeText(report.exp, 'none (never expires)')],
      ['nbf', timeText(report.nbf, 'none')],
      ['signer', signerText(report)],
      ['namespace', printable(report.namespace ?? '')],
      ['hash', report.hash ?? ''],
    );
  }
  rows.push(['size', `${report.size} bytes`]);
  if (report.kind === 'svc0') rows.push(['verified', verifiedText(report, style, verifyFile)]);
  // Values from the token are made printable before styling (a token could carry escape codes).
  const lines = rows.map(([label, value]) => `${style.label(label.padEnd(LABEL_WIDTH))}${value}`);
  for (const w of report.warnings) lines.push(style.warn(`warning: ${printable(w.message)}`));
  return `${lines.join('\n')}\n`;
}

/**
 * `yes` only once the signature is verified: without --verify only the structure and the time
 * window were judged, and the signer is only what the token claims.
 */
function validText(report: InspectReport, style: Style): string {
  if (report.valid !== true) return style.bad(`no (${report.error ?? ''})`);
  if (report.signature_verified === true) return style.good('yes');
  return 'if signed by a registered key (the signature is not checked without --verify)';
}

function cmdsText(report: InspectReport): string {
  const cmds = report.effective_cmds ?? [];
  const list = cmds.length === 0 ? '(none: the token allows no command)' : cmds.join(', ');
  return report.cmds_are_defaults ? `${list} (defaults: the token has no cmds)` : list;
}

function timeText(time: TimeField | null, absent: string): string {
  return time === null ? absent : `${time.utc} (${time.relative})`;
}

function signerText(report: InspectReport): string {
  const signer = report.signer;
  if (signer === null) return '';
  return `${signer.type ?? 'unsupported key type'} ${signer.fingerprint}`;
}

function verifiedText(report: InspectReport, style: Style, verifyFile: string | undefined): string {
  if (report.signature_verified === null) return 'not checked (use --verify FILE)';
  if (report.signature_verified) return style.good(`yes, by a key in ${verifyFile ?? ''}`);
  const namespace = printable(report.namespace ?? '');
  return style.bad(`no: no key in ${verifyFile ?? ''} signed it for ${namespace}`);
}
