/// How log lines are written: `text` for people, `json` (one object a line) for log shippers.
public enum LogFormat: String, Sendable, CaseIterable {
  case text, json
}
