// `switchyard-preview:` documents: Switchyard's preview of what Roundhouse makes of a source file,
// read-only, refreshed as the source changes. The URI carries the source URI and the target.

export const PREVIEW_SCHEME = "switchyard-preview";
export const TARGETS = ["ruby", "jruby", "spinel"] as const;
export type PreviewTarget = (typeof TARGETS)[number];

export interface PreviewResult {
  text: string;
  language: string;
  target: PreviewTarget;
  mapping: [number, number][];
}

/** `switchyard-preview:/<file name> (<target>)?<source uri>#<target>`: the tab shows the file's name. */
export function previewUri(sourceUri: string, target: PreviewTarget = "ruby"): string {
  const name = decodeURIComponent(sourceUri.split("/").pop() ?? "preview").replace(/[?#]/g, "");
  return `${PREVIEW_SCHEME}:/${encodeURIComponent(`${name} (${target})`)}?${encodeURIComponent(sourceUri)}#${target}`;
}

export function sourceOfPreviewUri(uri: string): { source: string; target: PreviewTarget } | undefined {
  if (!uri.startsWith(`${PREVIEW_SCHEME}:`)) return undefined;
  const query = uri.indexOf("?");
  if (query < 0) return undefined;
  const hash = uri.indexOf("#", query);
  const target = (hash >= 0 ? uri.slice(hash + 1) : "ruby") as PreviewTarget;
  if (!TARGETS.includes(target)) return undefined;
  try {
    return { source: decodeURIComponent(uri.slice(query + 1, hash >= 0 ? hash : undefined)), target };
  } catch {
    return undefined;
  }
}

/** The preview line that shows source line `sourceLine` (0-based), for scrolling the two together. */
export function previewLineFor(mapping: [number, number][], sourceLine: number): number | undefined {
  let best: [number, number] | undefined;
  for (const pair of mapping) {
    if (pair[1] <= sourceLine && (!best || pair[1] > best[1] || (pair[1] === best[1] && pair[0] < best[0]))) best = pair;
  }
  return best?.[0];
}
