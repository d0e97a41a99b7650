/**
 * The fingerprint of each model folder picked from the disk, by model name, kept in localStorage, so a run
 * encoded from a folder can be restored from the cache after a reload without picking the folder again.
 */
const LOCAL_REVISIONS = 'fliplab.localModelRevisions';

/** The fingerprint of each picked local folder, by model name, so its cached run can be restored without it. */
function localRevisions(): Record<string, string> {
  try {
    const v = JSON.parse(globalThis.localStorage?.getItem(LOCAL_REVISIONS) ?? '{}') as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}
export function localRevision(model: string): string | undefined {
  const r = localRevisions()[model];
  return typeof r === 'string' ? r : undefined;
}
export function rememberLocalRevision(model: string, revision: string): void {
  try {
    globalThis.localStorage?.setItem(LOCAL_REVISIONS, JSON.stringify({ ...localRevisions(), [model]: revision }));
  } catch {
    // Storage refused (private mode, quota): the folder is then asked for again after a reload.
  }
}
