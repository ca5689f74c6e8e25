import App
import CurlClient
import GitHub
import GitHubDouble
import HTTP
import Synchronization
import TestSupport
import Testing

/// Access-log lines the app wrote, kept for assertions.
final class LogLines: Sendable {
  private let lines = Mutex<[String]>([])
  var all: [String] { lines.withLock { $0 } }
  func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A GitHub double and a RepoScroll app on loopback ports, with libcurl as the test's HTTP client.
struct AppHarness: Sendable {
  let double: GitHubDouble
  let doublePort: Int
  let app: RepoScrollApp
  let port: Int
  let logs: LogLines
  let http: CurlHTTPClient
  let configuration: AppConfiguration

  /// A full-size catalog shared by tests that only read (never reset, fault or limit it). Its items
  /// all have today's shape and no page is short, so golden files and list walks stay exact.
  static let sharedDouble: GitHubDouble = {
    var c = DoubleConfiguration()
    c.searchLimitPerMinute = 1_000_000
    c.coreLimitPerHour = 1_000_000
    c.legacyItemRate = 0
    c.shortPageRate = 0
    return GitHubDouble(configuration: c)
  }()

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
  static func smallDouble(_ configure: (inout DoubleConfiguration) -> Void = { _ in }) -> GitHubDouble {
    var c = DoubleConfiguration()
    c.seed = 7
    c.repositoryCount = 1500
    c.ownerCount = 200
    c.searchLimitPerMinute = 1_000_000
    c.coreLimitPerHour = 1_000_000
    c.legacyItemRate = 0
    c.shortPageRate = 0
    configure(&c)
    return GitHubDouble(configuration: c)
  }

  /// Runs `body` against a fresh app pointed at `double` (started here and stopped afterwards), or at
  /// the shared full-size double when `double` is nil.
  static func with(
    double: GitHubDouble? = nil, configure: (inout AppConfiguration) -> Void = { _ in },
    _ body: (AppHarness) async throws -> Void
  ) async throws {
    let own = double != nil
    let doublePort = try double.map { try $0.start(host: "127.0.0.1", port: 0) } ?? sharedPort()
    let harness: AppHarness
    do {
      harness = try start(double: double ?? sharedDouble, doublePort: doublePort, configure: configure)
    } catch {
      if own { await double?.shutdown() }
      throw error
    }
    do {
      try await body(harness)
    } catch {
      await harness.stop(stopDouble: own)
      throw error
    }
    await harness.stop(stopDouble: own)
  }

  /// Starts an app pointed at a double already listening on `doublePort`.
  static func start(
    double: GitHubDouble, doublePort: Int, configure: (inout AppConfiguration) -> Void
  ) throws -> AppHarness {
    let root = try ProcessRunner.packageRoot()
    var configuration = AppConfiguration()
    configuration.port = 0
    configuration.githubAPI = "http://127.0.0.1:\(doublePort)"
    configuration.avatarBase = "http://127.0.0.1:\(doublePort)"
    configuration.templatesDirectory = root + "/Templates"
    configuration.publicDirectory = root + "/Public"
    configure(&configuration)
    let logs = LogLines()
    let app = try RepoScrollApp(configuration: configuration, log: { logs.append($0) })
    let appPort = try app.start()
    return AppHarness(
      double: double, doublePort: doublePort, app: app, port: appPort, logs: logs,
      http: CurlHTTPClient(configuration: CurlClientConfiguration(maxConcurrentRequests: 64)),
      configuration: configuration)
  }

  func stop(stopDouble: Bool) async {
    await app.shutdown()
    http.shutdown()
    if stopDouble { await double.shutdown() }
  }

  /// GET `target` from the app.
  func get(_ target: String, headers: HTTPHeaders = [:]) async throws -> ClientResponse {
    try await http.execute(ClientRequest(url: "http://127.0.0.1:\(port)\(target)", headers: headers))
  }

  /// GET `target` from the app, expecting 200, and return the body as text.
  func text(_ target: String, headers: HTTPHeaders = [:]) async throws -> String {
    let response = try await get(target, headers: headers)
    #expect(response.status.code == 200, "\(target) answered \(response.status)")
    return String(decoding: response.body, as: UTF8.self)
  }

  /// Calls the double's control API.
  @discardableResult
  func control(_ method: HTTPMethod, _ path: String) async throws -> ClientResponse {
    let response = try await http.execute(
      ClientRequest(url: "http://127.0.0.1:\(doublePort)\(path)", method: method))
    #expect(response.status.code == 200, "double \(path) answered \(response.status)")
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
