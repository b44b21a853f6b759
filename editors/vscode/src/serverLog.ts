// The server's stderr, line by line, at the level each line was logged at. The server logs with
// `tracing` (`2026-12-01T19:33:13.864288Z  WARN switchyard::lsp: text`); anything else it writes
// (a panic's message, a note for a person at a terminal) is an error when it says so, else info.
export type Level = "trace" | "debug" | "info" | "warn" | "error";

export interface LogLine {
  level: Level;
  text: string;
}

const TRACING = /^\d{4}-\d\d-\d\dT[\d:.]+Z\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+(.*)$/;

export function parseLogLine(line: string): LogLine {
  const match = TRACING.exec(line);
  if (match) {
    return { level: match[1].toLowerCase() as Level, text: match[2] };
  }
  const failed = /panicked at|^switchyard: error:|^error:/.test(line);
  return { level: failed ? "error" : "info", text: line };
}

export interface LevelledLog {
  trace(text: string): void;
  debug(text: string): void;
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
}

export function logLine(log: LevelledLog, line: string): void {
  if (line.trim() === "") return;
  const { level, text } = parseLogLine(line);
  log[level](text);
}
