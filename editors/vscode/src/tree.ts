// Where a file lands, as the status item and the "Show emitted tree" document show it, from the
// server's `switchyard/emittedTree` answer.

export interface TargetTree {
  paths: string[];
  swaps: string[];
  lane: string | null;
}

export interface EmittedTree {
  source: string;
  targets: Partial<Record<"ruby" | "jruby" | "spinel", TargetTree>>;
  note?: string;
  summary: string;
}

export const TREE_SCHEME = "switchyard-tree";

/** The status item: `CRuby · JVM · Spinel AOT`, naming only the trees the file lands in. */
export function statusText(tree: EmittedTree | null | undefined): string {
  if (!tree) return "";
  const lands = (t?: TargetTree) => !!t && t.paths.length > 0;
  const parts: string[] = [];
  if (lands(tree.targets.ruby)) parts.push("CRuby");
  if (lands(tree.targets.jruby)) parts.push(tree.targets.jruby!.swaps.length > 0 ? "JVM (swaps)" : "JVM");
  if (lands(tree.targets.spinel)) parts.push(`Spinel ${(tree.targets.spinel!.lane ?? "").toUpperCase()}`.trim());
  return parts.length > 0 ? parts.join(" · ") : "No tree";
}

/** The "Show emitted tree" document. */
export function treeText(tree: EmittedTree): string {
  const lines = [tree.source, "", tree.summary, ""];
  const labels: Record<string, string> = { ruby: "CRuby", jruby: "JVM", spinel: "Spinel" };
  for (const target of ["ruby", "jruby", "spinel"] as const) {
    const t = tree.targets[target];
    if (!t) continue;
    lines.push(`${labels[target]}:`);
    lines.push(...(t.paths.length > 0 ? t.paths.map((p) => `  ${p}`) : ["  (no file)"]));
    if (t.lane) lines.push(`  lane: ${t.lane}`);
    for (const swap of t.swaps) lines.push(`  swap: ${swap}`);
  }
  if (tree.note) lines.push("", `Note: ${tree.note}`);
  return lines.join("\n") + "\n";
}
