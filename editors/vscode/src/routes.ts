// The read-only `switchyard-routes:` documents that "Switchyard: Show routes" opens: one per app
// root, filled from the server's `switchyard/routes` request.

export const ROUTES_SCHEME = "switchyard-routes";

export interface AppRoutes {
  name: string;
  root: string;
  table: string;
}

export interface RoutesResult {
  apps: AppRoutes[];
}

/** `switchyard-routes:/routes?<source uri>`: the document for the app holding `sourceUri`. */
export function routesUri(sourceUri: string): string {
  return `${ROUTES_SCHEME}:/routes?${encodeURIComponent(sourceUri)}`;
}

/** The source URI a routes document was opened for, or undefined for a foreign URI. */
export function sourceOfRoutesUri(uri: string): string | undefined {
  const prefix = `${ROUTES_SCHEME}:/routes?`;
  if (!uri.startsWith(prefix)) return undefined;
  try {
    return decodeURIComponent(uri.slice(prefix.length));
  } catch {
    return undefined;
  }
}

/** The text of a routes document: each app's table, headed by its name when there are several. */
export function routesText(result: RoutesResult): string {
  if (result.apps.length === 0) return "No Rails app here: Switchyard found no config/routes.rb.\n";
  if (result.apps.length === 1) return result.apps[0].table;
  return result.apps.map((app) => `# ${app.name}\n${app.table}`).join("\n");
}
