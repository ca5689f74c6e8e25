import Clocks

/// The app's three logs, all redacted and stamped by the app's clock: the access log (one line per
/// request, when on), the upstream-failure log (always written: it explains empty pages) and the
/// startup log (startup and shutdown events). All three go to `sink` when given (tests), else to
/// standard error.
struct AppLogs: Sendable {
  /// One line per request; nil when `--access-log` is off and no sink was given.
  let access: AccessLog?
  /// Failed upstream transfers, written even without an access log.
  let failures: AccessLog
  /// Startup and shutdown events.
  let startup: AccessLog

  init(_ configuration: AppConfiguration, sink: (@Sendable (String) -> Void)?, time: TimeSource) {
    let secrets = configuration.secrets
    let instance = configuration.instance ?? AccessLog.defaultInstance
    func log(_ sink: (@Sendable (String) -> Void)?) -> AccessLog {
      AccessLog(sink: sink, secrets: secrets, format: configuration.logFormat, instance: instance, time: time)
    }
    access = sink != nil || configuration.accessLog ? log(sink) : nil
    failures = log(sink)
    startup = log(sink)
  }

  /// Writes one startup line.
  var note: @Sendable (String) -> Void {
    let startup = startup
    return { startup.event($0) }
  }
}
