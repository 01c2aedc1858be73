/**
 * Turns a command's JSON data into what a front end writes as JSON: HTTP always, SSH with
 * `--json`. The readable text form is shared with the client: see src/text-views/.
 */

/** Compact JSON followed by a newline, as every /exec answer is (SPEC §2). */
export function renderJson(data: unknown): string {
  return JSON.stringify(data) + '\n';
}
