// Where the server binary is: the `switchyard.server.path` setting, else a binary bundled in the
// extension's `server/` folder, else `switchyard` on PATH. Pure: the file system is passed in, so the
// order is unit-tested.
import * as path from "path";

export interface FileSystem {
  isExecutable(file: string): boolean;
}

export interface Resolution {
  command: string;
  source: "setting" | "bundled" | "path";
}

export function binaryName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "switchyard.exe" : "switchyard";
}

export function resolveServerPath(
  setting: string | undefined,
  extensionPath: string,
  envPath: string | undefined,
  fs: FileSystem,
  platform: NodeJS.Platform = process.platform,
): Resolution | undefined {
  const configured = setting?.trim();
  if (configured) {
    // An explicit setting wins even when missing: the client then says which path failed.
    return { command: configured, source: "setting" };
  }
  const bundled = path.join(extensionPath, "server", binaryName(platform));
  if (fs.isExecutable(bundled)) {
    return { command: bundled, source: "bundled" };
  }
  const separator = platform === "win32" ? ";" : ":";
  for (const dir of (envPath ?? "").split(separator)) {
    if (!dir) continue;
    const candidate = path.join(dir, binaryName(platform));
    if (fs.isExecutable(candidate)) {
      return { command: candidate, source: "path" };
    }
  }
  return undefined;
}
