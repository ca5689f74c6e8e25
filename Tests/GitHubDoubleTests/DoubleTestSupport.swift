import Clocks
import Encodings
import GitHubDouble
import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

enum Fixtures {
  /// The full-size catalog, built once; tests using it must not change its state. Its items all have
  /// the current shape and its pages are never short, so search semantics can be checked exactly.
  static let shared = GitHubDouble(configuration: .exact, time: .system)

  /// The full-size catalog with every realistic default on (legacy items, short pages, wire framing).
  static let realistic: GitHubDouble = {
    var c = DoubleConfiguration()
    c.searchLimitPerMinute = 1_000_000
    c.coreLimitPerHour = 1_000_000
    return GitHubDouble(configuration: c, time: .system)
  }()

  /// A small double for tests that change limits or faults.
  static func small(seed: UInt64 = 7, _ configure: (inout DoubleConfiguration) -> Void = { _ in })
    -> GitHubDouble
  {
    GitHubDouble(configuration: smallConfiguration(seed: seed, configure), time: .system)
  }

  /// A small double on a clock the test sets, starting at `epochSeconds`, and that clock.
  static func clocked(
    epochSeconds: Double = 1_800_000_000, _ configure: (inout DoubleConfiguration) -> Void = { _ in }
  ) -> (GitHubDouble, ManualClock) {
    let clock = ManualClock(epochSeconds: epochSeconds)
    return (GitHubDouble(configuration: smallConfiguration(configure), time: clock.time), clock)
  }

  /// 1,500 repositories of 200 owners, then `configure`.
  private static func smallConfiguration(seed: UInt64 = 7, _ configure: (inout DoubleConfiguration) -> Void)
    -> DoubleConfiguration
  {
    var c = DoubleConfiguration()
    c.seed = seed
    c.repositoryCount = 1500
    c.ownerCount = 200
    configure(&c)
    return c
  }

  /// The OpenAPI pieces in `../shared/github-openapi`, read once. Without `../shared` the test asking
  /// is skipped (or, with `CI=true`, fails): `SharedData.path` decides.
  static var validator: JSONSchemaValidator {
    get throws {
      let directory = try SharedData.path("github-openapi")
      return try loadedValidator.withLock { cached in
        if let cached { return cached }
        let loaded = try JSONSchemaValidator(directory: directory)
        cached = loaded
        return loaded
      }
    }
  }
  private static let loadedValidator = Mutex<JSONSchemaValidator?>(nil)

  /// The package root (the folder that holds Package.swift).
  static func packageRoot() -> String {
    do { return try ProcessRunner.packageRoot() } catch { preconditionFailure("\(error)") }
  }

}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension GitHubDouble {
  /// Calls the handler directly, as the server would, and collects a streamed body into bytes.
  func get(_ target: String, headers: HTTPHeaders = [:], method: HTTPMethod = .get) async throws
    -> HTTPResponse
  {
    var h = headers
    if h["Host"] == nil { h.add(name: "Host", value: "double.test") }
    let request = HTTPRequest(method: method, target: target, headers: h)
    var response = try await handler(
      request, RequestContext(requestID: "T1", parameters: [:], remoteAddress: "127.0.0.1:5000"))
    if case .stream(let stream) = response.body {
      var bytes: [UInt8] = []
      for try await chunk in stream { bytes += chunk }
      response.body = .bytes(bytes)
      response.headers.add(name: "X-Test-Streamed", value: "1")
    }
    return response
  }

  func post(_ target: String) async throws -> HTTPResponse { try await get(target, method: .post) }
}

extension HTTPResponse {
  var bytes: [UInt8] {
    if case .bytes(let b) = body { return b }
    return []
  }
  var text: String { String(decoding: bytes, as: UTF8.self) }
  func json() throws -> SchemaJSON { try SchemaJSON.parse(bytes) }
}

/// Percent-encodes a search query for a URL.
func enc(_ s: String) -> String { URLEncoding.percentEncode(s) }
