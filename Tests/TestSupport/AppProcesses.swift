import Foundation

/// A `github-double` and a `repo-scroll` process (built products, over loopback) started with flags of
/// the caller's choosing, plus JSON calls to the double's control API. Browser and end-to-end tests share it.
public struct AppProcesses: Sendable {
  /// The double's process.
  public let double: ProcessRunner
  /// The app's process.
  public let app: ProcessRunner
  /// The double's port.
  public let doublePort: Int
  /// The app's port.
  public let appPort: Int

  /// The app's base URL.
  public var baseURL: String { "http://127.0.0.1:\(appPort)" }

  /// Runs `body` with both processes and stops them afterwards, also when `body` throws.
  public static func with<T>(
    doubleArguments: [String], appArguments: [String] = [], appEnvironment: [String: String] = [:],
    _ body: (AppProcesses) async throws -> T
  ) async throws -> T {
    let processes = try await start(
      doubleArguments: doubleArguments, appArguments: appArguments, appEnvironment: appEnvironment)
    return try await withCleanup({ await processes.stop() }) { try await body(processes) }
  }

  /// Starts the double, then the app pointed at it for both the API and avatars.
  public static func start(
    doubleArguments: [String], appArguments: [String], appEnvironment: [String: String] = [:]
  ) async throws -> AppProcesses {
    let double = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("github-double"),
      arguments: ["--port", "0"] + doubleArguments,
      name: "github-double")
    do {
      let doublePort = try await double.waitForListeningPort()
      let app = try startApp(doublePort: doublePort, arguments: appArguments, environment: appEnvironment)
      do {
        let appPort = try await app.waitForListeningPort()
        return AppProcesses(double: double, app: app, doublePort: doublePort, appPort: appPort)
      } catch {
        await app.terminate()
        throw error
      }
    } catch {
      await double.terminate()
      throw error
    }
  }

  /// A `repo-scroll` process pointed at the double on `doublePort` for both the API and avatars,
  /// serving the package's templates and static files, with `arguments` after those.
  public static func startApp(
    doublePort: Int, arguments: [String], environment: [String: String] = [:], name: String = "repo-scroll"
  ) throws -> ProcessRunner {
    let root = try ProcessRunner.packageRoot()
    let doubleURL = "http://127.0.0.1:\(doublePort)"
    return try ProcessRunner(
      executable: try ProcessRunner.builtProduct("repo-scroll"),
      arguments: [
        "--port", "0", "--github-api", doubleURL, "--avatar-base", doubleURL, "--templates",
        root + "/Templates",
        "--public", root + "/Public",
      ] + arguments, environment: environment, name: name)
  }

  /// Stops the app, then the double.
  public func stop() async {
    await app.terminate()
    await double.terminate()
  }

  /// Calls a double (this one unless `port` is given) and returns its JSON.
  @discardableResult
  public func double(_ method: String, _ path: String, port: Int? = nil) async throws -> WebDriverJSON {
    let reply = try await WebDriverLoopbackHTTP.exchange(
      port: port ?? doublePort, method: method, path: path, body: method == "POST" ? [] : nil,
      timeout: .seconds(10))
    guard reply.status == 200 else {
      throw WebDriverError.process("double \(method) \(path) answered \(reply.status): \(reply.text)")
    }
    return try WebDriverJSON.parse(Data(reply.body))
  }
}
