import Clocks
import RedisSharedStore

extension RepoScrollApp {
  /// Everything the executable runs, built once by `compose`: the app and the shared store it is on.
  public struct Composition: Sendable {
    /// The app, not yet listening (`start()`).
    public let app: RepoScrollApp
    /// The Redis store `--redis` named, or nil; the executable closes it after the app drains.
    public let sharedStore: RedisStore?
  }

  /// The composition root: connects the shared store `--redis` names, then builds the app on it,
  /// once, with the one clock. Only bad settings throw; an unreachable Redis does not stop startup
  /// (see `connectSharedStore`).
  ///
  /// ```swift
  /// let built = try await RepoScrollApp.compose(configuration, time: .system)
  /// let port = try built.app.start()
  /// ```
  public static func compose(_ configuration: AppConfiguration, time: TimeSource) async throws(StartupError)
    -> Composition
  {
    let store = try await connectSharedStore(configuration, time: time) { line in
      logEvent(line, configuration: configuration, time: time)
    }
    let app = try RepoScrollApp(configuration: configuration, sharedStore: store, time: time)
    return Composition(app: app, sharedStore: store)
  }
}
