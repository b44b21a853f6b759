// The extension's settings as the server's initializationOptions (the same shape as switchyard.toml).

export interface SettingsReader {
  get<T>(key: string, fallback: T): T;
}

export interface InitializationOptions {
  targets: string[];
  lanes: string[];
  rules: Record<string, string>;
  roundhouse: { binary?: string; checkout?: string };
  inlayHints: Record<string, boolean>;
  ruleDocs?: string;
}

const HINT_KINDS = ["associations", "validations", "scopes", "filters", "routes", "entryPoints", "rules"];

const TARGETS = new Set(["ruby", "jruby", "spinel"]);
const LANES = new Set(["ruby", "jruby", "truffleruby", "spinel"]);
const SEVERITIES = new Set(["error", "warning", "info", "off"]);

export function initializationOptions(settings: SettingsReader): InitializationOptions {
  // No targets: the app's switchyard.toml decides (else ruby and jruby).
  const targets = settings.get<string[]>("targets", []).filter((t) => TARGETS.has(t));
  // No lanes: the app's switchyard.toml decides (else the targets' own runtimes).
  const lanes = settings.get<string[]>("lanes", []).filter((l) => LANES.has(l));
  const rules: Record<string, string> = {};
  for (const [rule, severity] of Object.entries(settings.get<Record<string, string>>("rules", {}))) {
    if (SEVERITIES.has(severity)) rules[rule] = severity;
  }
  const binary = settings.get<string>("roundhouse.binary", "").trim();
  const checkout = settings.get<string>("roundhouse.checkout", "").trim();
  const inlayHints: Record<string, boolean> = {};
  for (const [kind, on] of Object.entries(settings.get<Record<string, unknown>>("inlayHints", {}))) {
    if (HINT_KINDS.includes(kind) && typeof on === "boolean") inlayHints[kind] = on;
  }
  // A URL with `{id}` (the team's hosted docs/rules.md); otherwise the server's own pages.
  const ruleDocs = settings.get<string>("ruleDocs", "").trim();
  return {
    targets,
    lanes,
    rules,
    roundhouse: { ...(binary ? { binary } : {}), ...(checkout ? { checkout } : {}) },
    inlayHints,
    ...(ruleDocs.includes("{id}") ? { ruleDocs } : {}),
  };
}
