import Clocks

/// The app's two logs, both redacted and stamped by the app's clock: the access log (one line per
/// request, when on) and the event log (startup and shutdown, and failed upstream transfers, which are
/// always written: they explain empty pages). Both go to `sink` when given (tests), else to standard
/// error.
struct AppLogs: Sendable {
  /// One line per request; nil when `--access-log` is off and no sink was given.
  let access: AccessLog?
  /// Startup and shutdown events, and failed upstream transfers: written even without an access log.
  let events: AccessLog

  init(_ configuration: AppConfiguration, sink: (@Sendable (String) -> Void)?, time: TimeSource) {
    let secrets = configuration.secrets
    let instance = configuration.instance ?? AccessLog.defaultInstance
    func log(_ sink: (@Sendable (String) -> Void)?) -> AccessLog {
      AccessLog(sink: sink, secrets: secrets, format: configuration.logFormat, instance: instance, time: time)
    }
    access = sink != nil || configuration.accessLog ? log(sink) : nil
    events = log(sink)
  }

  /// Writes one event line.
  var note: @Sendable (String) -> Void {
    let events = events
    return { events.event($0) }
  }
}
