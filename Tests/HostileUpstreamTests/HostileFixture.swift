import CurlClient
import Foundation
import HTTP
import TestSupport

/// A `github-double` process that stays up for the whole suite, and a `repo-scroll` process pointed at
/// it that is restarted only when a case leaves it locked out (rate limits) or broken.
final class HostileFixture: @unchecked Sendable {
  // @unchecked Sendable: the suite is serialized and only the one running case touches `app`.
  static let token = "ghp_hostileSuiteToken0123456789abcdef"

  let double: ProcessRunner
  let doublePort: Int
  private(set) var app: ProcessRunner
  private(set) var appPort: Int
  /// Every app process started, so the transcript can be scanned for the token at the end.
  private(set) var apps: [ProcessRunner] = []
  /// Requests to the app and control calls to the double.
  let http = CurlHTTPClient(configuration: .init(totalTimeout: .seconds(30), maxConcurrentRequests: 64))
  /// A client of its own for `/healthz`, so polls never queue behind the case's requests.
  let health = CurlHTTPClient(configuration: .init(totalTimeout: .seconds(5), maxConcurrentRequests: 2))

  private init(double: ProcessRunner, doublePort: Int, app: ProcessRunner, appPort: Int) {
    self.double = double
    self.doublePort = doublePort
    self.app = app
    self.appPort = appPort
    apps = [app]
  }

  static func start() async throws -> HostileFixture {
    let double = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("github-double"),
      arguments: ["--port", "0", "--search-limit", "1000000", "--core-limit", "1000000", "--seed", "11"],
      name: "github-double")
    let doublePort = try await double.waitForListeningPort()
    let (app, appPort) = try await launchApp(doublePort: doublePort)
    return HostileFixture(double: double, doublePort: doublePort, app: app, appPort: appPort)
  }

  private static func launchApp(doublePort: Int) async throws -> (ProcessRunner, Int) {
    let app = try AppProcesses.startApp(
      doublePort: doublePort, arguments: ["--drain-timeout", "1"], environment: ["GITHUB_TOKEN": token])
    return (app, try await app.waitForListeningPort())
  }

  /// Stops the app and starts a fresh one on the same double.
  func restartApp() async throws {
    await app.terminate()
    let (fresh, port) = try await Self.launchApp(doublePort: doublePort)
    app = fresh
    appPort = port
    apps.append(fresh)
  }

  func stop() async {
    await app.terminate()
    await double.terminate()
    http.shutdown()
    health.shutdown()
  }

  /// GET from the app; the elapsed time comes back with the answer (or the transport error).
  func get(_ target: String) async -> (Result<ClientResponse, ClientError>, Duration) {
    let started = ContinuousClock.now
    do {
      let response = try await http.execute(ClientRequest(url: "http://127.0.0.1:\(appPort)\(target)"))
      return (.success(response), ContinuousClock.now - started)
    } catch {
      return (.failure(error), ContinuousClock.now - started)
    }
  }

  /// A control call to the double (faults, reset); true on 200.
  @discardableResult
  func control(_ method: HTTPMethod, _ path: String) async -> Bool {
    let request = ClientRequest(url: "http://127.0.0.1:\(doublePort)\(path)", method: method)
    return (try? await http.execute(request))?.status.code == 200
  }

  /// A page of search results straight from the double (healthy), for names and ids to ask about.
  func catalogSample() async throws -> [(owner: String, name: String, ownerID: Int)] {
    let url = "http://127.0.0.1:\(doublePort)/search/repositories?q=stars%3A%3E%3D0&per_page=100"
    let body = try await http.execute(ClientRequest(url: url)).body
    let json = try SchemaJSON.parse(body)
    return (json["items"]?.array ?? []).compactMap { item in
      guard let name = item["name"]?.string, let owner = item["owner"]?["login"]?.string,
        let id = item["owner"]?["id"]?.int
      else { return nil }
      return (owner, name, id)
    }
  }

  /// Resident and peak resident memory of the app, in MiB, from /proc.
  func memory() -> (rss: Double, peak: Double) {
    guard let text = try? String(contentsOfFile: "/proc/\(app.pid)/status", encoding: .utf8) else {
      return (0, 0)
    }
    func field(_ name: String) -> Double {
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else {
        return 0
      }
      let kb = Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") ?? 0
      return kb / 1024
    }
    return (field("VmRSS"), field("VmHWM"))
  }

  /// What polling `/healthz` found: the slowest answer, polls over `bound`, polls, failures.
  struct Health {
    var slowest = Duration.zero
    var slow = 0
    var polls = 0
    var failures = 0
  }

  /// Polls `/healthz` every 50 ms until `stop` is set.
  func pollHealth(bound: Duration, until stop: @escaping @Sendable () -> Bool) async -> Health {
    var result = Health()
    // At least once, even when the answers came first: a case always checks health.
    repeat {
      let started = ContinuousClock.now
      let ok =
        (try? await health.execute(ClientRequest(url: "http://127.0.0.1:\(appPort)/healthz")))?.status.code
        == 200
      let elapsed = ContinuousClock.now - started
      result.polls += 1
      if !ok { result.failures += 1 }
      if elapsed > bound { result.slow += 1 }
      result.slowest = max(result.slowest, elapsed)
      // Real time: a health probe every 50 ms, as a monitor would poll.
      try? await Task.sleep(for: .milliseconds(50))
    } while !stop()
    return result
  }
}
