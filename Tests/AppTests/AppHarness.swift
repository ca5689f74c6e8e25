import Clocks
import CurlClient
import Foundation
import GitHub
import GitHubDouble
import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

@testable import App

/// Access-log lines the app wrote, kept for assertions.
final class LogLines: Sendable {
  private let lines = Mutex<[String]>([])
  var all: [String] { lines.withLock { $0 } }
  func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A GitHub double and a RepoScroll app, in process by default: the app's requests are calls to its
/// handler and its GitHub is the double's handler behind an `InProcessTransport`, so no socket, port
/// or libcurl thread is involved. `live: true` runs both on loopback ports instead, for the tests
/// that need the server itself (streaming, raw bytes, the access log, TLS).
///
/// ```swift
/// try await AppHarness.with { h in
///   let html = try await h.text("/?q=swift")
/// }
/// ```
struct AppHarness: Sendable {
  let double: GitHubDouble
  /// The double's port; 0 in process.
  let doublePort: Int
  let app: RepoScrollApp
  /// The app's port; 0 in process.
  let port: Int
  let logs: LogLines
  /// libcurl for live harnesses; nil in process.
  let http: CurlHTTPClient?
  let configuration: AppConfiguration

  /// The API and avatar base the in-process app is given; the double builds its URLs from it.
  static let inProcessBase = "http://github.test"

  /// A full-size catalog shared by tests that only read (never reset, fault or limit it). Its items
  /// all have today's shape and no page is short, so golden files and list walks stay exact.
  static let sharedDouble = GitHubDouble(configuration: .exact, time: .system)

  private static let sharedPortBox = Mutex<Int?>(nil)

  /// The shared double's port, started on first use and left running for the test process.
  static func sharedPort() throws -> Int {
    try sharedPortBox.withLock { port in
      if let port { return port }
      let started = try sharedDouble.start(host: "127.0.0.1", port: 0)
      port = started
      return started
    }
  }

  /// A small double (1,500 repositories) of its own, for tests that count calls or inject faults.
  static func smallDouble(
    time: TimeSource = .system, _ configure: (inout DoubleConfiguration) -> Void = { _ in }
  ) -> GitHubDouble {
    var c = DoubleConfiguration.exact
    c.seed = 7
    c.repositoryCount = 1500
    c.ownerCount = 200
    configure(&c)
    return GitHubDouble(configuration: c, time: time)
  }

  /// Runs `body` against a fresh app pointed at `double`, or at the shared full-size double when
  /// `double` is nil. In process unless `live`; a live double is started here and stopped afterwards.
  /// The app reads the time from `time`.
  static func with(
    double: GitHubDouble? = nil, live: Bool = false, time: TimeSource = .system,
    configure: (inout AppConfiguration) -> Void = { _ in }, _ body: (AppHarness) async throws -> Void
  ) async throws {
    let own = double != nil
    let harness: AppHarness
    if live {
      let doublePort = try double.map { try $0.start(host: "127.0.0.1", port: 0) } ?? sharedPort()
      do {
        harness = try start(
          double: double ?? sharedDouble, doublePort: doublePort, time: time, configure: configure)
      } catch {
        if own { await double?.shutdown() }
        throw error
      }
    } else {
      harness = try inProcess(double: double ?? sharedDouble, time: time, configure: configure)
    }
    try await withCleanup({ await harness.stop(stopDouble: own && live) }) { try await body(harness) }
  }

  /// Real monotonic time with the wall clock stopped at one instant: a long walk under load then
  /// keeps every cached search page fresh (their lifetime runs on the wall clock), so counts of
  /// upstream calls do not depend on how fast the machine is.
  static let stoppedWall: TimeSource = {
    let instant = TimeSource.system.wallNanoseconds()
    return TimeSource(
      wallNanoseconds: { instant }, monotonicNanoseconds: TimeSource.system.monotonicNanoseconds)
  }()

  /// Runs `body` with a scratch copy of the package's templates and a configuration that reads it
  /// (static files from the package, access log off), for tests that break a template on purpose.
  /// The copy is removed afterwards.
  static func withTemplateCopy(_ body: (_ folder: String, _ configuration: AppConfiguration) throws -> Void)
    throws
  {
    let root = try ProcessRunner.packageRoot()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rs-templates-\(UInt32.random(in: 0...UInt32.max))"
    ).path
    try FileManager.default.copyItem(atPath: root + "/Templates", toPath: folder)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var configuration = AppConfiguration()
    configuration.templatesDirectory = folder
    configuration.publicDirectory = root + "/Public"
    configuration.accessLog = false
    try body(folder, configuration)
  }

  /// What stops startup with `configuration`, as the operator is told it; nil, with an issue recorded,
  /// when the app starts.
  static func startupFailure(
    _ configuration: AppConfiguration, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> String? {
    let error = #expect(throws: RepoScrollApp.StartupError.self, comment, sourceLocation: sourceLocation) {
      _ = try RepoScrollApp(configuration: configuration, time: .system)
    }
    return error?.description
  }

  /// The default configuration for tests: templates and static files from the package.
  static func baseConfiguration(api: String) throws -> AppConfiguration {
    let root = try ProcessRunner.packageRoot()
    var configuration = AppConfiguration()
    configuration.port = 0
    configuration.githubAPI = api
    configuration.avatarBase = api
    configuration.templatesDirectory = root + "/Templates"
    configuration.publicDirectory = root + "/Public"
    // The whole target runs its 180 tests at once on 2 cores: a call that takes 1 s alone can wait
    // 20 s there. Timeouts are tested where they are set on purpose; elsewhere one must not fire.
    configuration.upstreamTimeout = 120
    return configuration
  }

  /// An app whose GitHub is `upstream` (by default `double`'s handler), called in process.
  static func inProcess(
    double: GitHubDouble, upstream: HTTPHandler? = nil, time: TimeSource = .system,
    configure: (inout AppConfiguration) -> Void
  ) throws -> AppHarness {
    var configuration = try baseConfiguration(api: inProcessBase)
    configure(&configuration)
    let logs = LogLines()
    let app = try RepoScrollApp(
      configuration: configuration, transport: InProcessTransport(handler: upstream ?? double.handler),
      time: time, log: { logs.append($0) })
    return AppHarness(
      double: double, doublePort: 0, app: app, port: 0, logs: logs, http: nil, configuration: configuration)
  }

  /// Starts an app pointed at a double already listening on `doublePort`.
  static func start(
    double: GitHubDouble, doublePort: Int, time: TimeSource = .system,
    configure: (inout AppConfiguration) -> Void
  ) throws -> AppHarness {
    var configuration = try baseConfiguration(api: "http://127.0.0.1:\(doublePort)")
    configure(&configuration)
    let logs = LogLines()
    let app = try RepoScrollApp(configuration: configuration, time: time, log: { logs.append($0) })
    let appPort = try app.start()
    return AppHarness(
      double: double, doublePort: doublePort, app: app, port: appPort, logs: logs,
      // As long as the app's own upstream timeout (above), for the same reason; a hang still ends
      // at the suite's time limit.
      http: CurlHTTPClient(
        configuration: CurlClientConfiguration(totalTimeout: .seconds(120), maxConcurrentRequests: 64)),
      configuration: configuration)
  }

  func stop(stopDouble: Bool) async {
    await app.shutdown()
    http?.shutdown()
    if stopDouble { await double.shutdown() }
  }

  /// Sends `method target` to the app: over loopback when live, else straight to its handler.
  func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:]) async throws
    -> ClientResponse
  {
    if let http {
      return try await http.execute(
        ClientRequest(url: "http://127.0.0.1:\(port)\(target)", method: method, headers: headers))
    }
    var headers = headers
    if headers["Host"] == nil { headers.add(name: "Host", value: "reposcroll.test") }
    return try await InProcessTransport.call(
      app.handler, HTTPRequest(method: method, target: target, headers: headers))
  }

  /// GET `target` exactly as written: over a raw socket when live (so escapes and dot segments reach
  /// the server's parser unchanged), else straight to the handler, which sees it as written too.
  func raw(_ target: String) async throws -> RawResponse {
    if http != nil { return try await RawRequest.get(port: port, target: target) }
    let response = try await request(.get, target)
    return RawResponse(status: response.status.code, headers: response.headers, body: response.body)
  }

  /// GET `target` from the app.
  func get(_ target: String, headers: HTTPHeaders = [:]) async throws -> ClientResponse {
    try await request(.get, target, headers: headers)
  }

  /// GET `target` from the app, expecting 200, and return the body as text.
  func text(_ target: String, headers: HTTPHeaders = [:]) async throws -> String {
    let response = try await get(target, headers: headers)
    expectEqual(response.status.code, 200, "\(target) answered \(response.status)")
    return String(decoding: response.body, as: UTF8.self)
  }

  /// Calls the double's control API.
  @discardableResult
  func control(_ method: HTTPMethod, _ path: String) async throws -> ClientResponse {
    let response: ClientResponse
    if let http {
      response = try await http.execute(
        ClientRequest(url: "http://127.0.0.1:\(doublePort)\(path)", method: method))
    } else {
      response = try await InProcessTransport.call(double.handler, HTTPRequest(method: method, target: path))
    }
    expectEqual(response.status.code, 200, "double \(path) answered \(response.status)")
    return response
  }

  /// Calls to one endpoint as `GET /_double/counters` reports them.
  func countedCalls(_ endpoint: String) async throws -> Int {
    let json = String(decoding: try await control(.get, "/_double/counters").body, as: UTF8.self)
    for found in json.matches(of: #/"(\w+)":\{"calls":(\d+)/#) where found.1 == endpoint {
      return Int(found.2) ?? 0
    }
    return 0
  }

  /// The double's search calls so far.
  var searchCalls: Int { double.counters().calls(.search) }
}
