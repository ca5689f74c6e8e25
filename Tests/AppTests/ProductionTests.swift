import App
import CommandLineOptions
import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

/// What a production host relies on: JSON logs that parse and hold no secret, draining health,
/// process and build metrics, duration histograms, and secrets read from files and credentials.
@Suite("Production", .serialized, .timeLimit(.minutes(6)))
struct ProductionTests {
  static let token = "ghp_Pr0ductionT0kenNeverLogged"

  @Test func jsonLogLinesParseCarryEveryFieldAndHoldNoSecret() async throws {
    try await AppHarness.with(
      live: true,
      configure: {
        $0.githubToken = Self.token
        $0.logFormat = .json
        $0.instance = "web-7"
      }
    ) { h in
      let secretHeaders: HTTPHeaders = [
        "Cookie": "__Host-session=SessionIdNeverLogged", "Authorization": "Bearer AuthNeverLogged",
      ]
      _ = try await h.get("/fragments/results?q=language%3Apython&after=20", headers: secretHeaders)
      _ = try await h.get("/?q=\(Self.token)", headers: secretHeaders)
      _ = try await h.get("/nope%22%0A%7B")
      // The server logs a request just after answering it.
      expectTrue(await eventually { h.logs.all.count >= 3 })
      let lines = h.logs.all
      expectTrue(lines.count >= 3)
      for line in lines {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        expectTrue(object != nil, "\(line)")
        expectTrue(!line.contains(Self.token) && !line.contains("NeverLogged"), "\(line)")
      }
      let fragment = try #require(lines.first { $0.contains("/fragments/results") })
      let object = try #require(try JSONSerialization.jsonObject(with: Data(fragment.utf8)) as? [String: Any])
      for key in [
        "time", "level", "request_id", "method", "path", "status", "bytes", "duration_ms", "client",
        "instance",
      ] {
        expectTrue(object[key] != nil, "\(key) in \(fragment)")
      }
      expectEqual(object["client"] as? String, "127.0.0.1")
      expectEqual(object["instance"] as? String, "web-7")
      expectTrue(lines.contains { $0.contains("[redacted]") }, "the token in a query is redacted")
    }
  }

  @Test func healthzSaysDrainingOnceShutdownBegins() async throws {
    try await AppHarness.with { h in
      try await expectEqual(h.get("/healthz").status.code, 200)
      await h.app.shutdown()
      let response = try await h.get("/healthz")
      expectEqual(response.status.code, 503)
      expectEqual(String(decoding: response.body, as: UTF8.self), "draining\n")
    }
  }

  @Test func metricsHaveProcessBuildInfoAndCumulativeDurationHistograms() async throws {
    try await AppHarness.with(double: AppHarness.smallDouble()) { h in
      _ = try await h.text("/?q=language%3Apython")
      _ = try await h.text("/?q=language%3Ago")
      let text = try await h.text("/metrics")
      for name in [
        "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
        "process_max_fds",
        "process_start_time_seconds", "process_cpu_seconds_total",
      ] {
        let value = try #require(Self.sample(text, name), "\(name)")
        expectTrue(value > 0, "\(name) \(value)")
      }
      let start = try #require(Self.sample(text, "process_start_time_seconds"))
      expectTrue(abs(start - Date().timeIntervalSince1970) < 86_400 * 30, "a plausible start time")
      expectTrue(
        text.contains(
          "reposcroll_build_info{version=\"\(BuildInfo.version)\",commit=\"\(BuildInfo.commit)\"} 1"))
      expectTrue(text.contains("# TYPE reposcroll_http_request_duration_seconds histogram"))
      let buckets = text.split(separator: "\n").filter {
        $0.hasPrefix("reposcroll_http_request_duration_seconds_bucket{route=\"page\"")
      }.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
      expectEqual(buckets.count, 13, "12 bounds and +Inf")
      expectEqual(buckets, buckets.sorted(), "cumulative")
      expectEqual(buckets.last, 2)
      expectTrue(text.contains("reposcroll_http_request_duration_seconds_count{route=\"page\"} 2"))
    }
  }

  static func sample(_ text: String, _ name: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
      return line.split(separator: " ").last.flatMap { Double($0) }
    }
    return nil
  }
}

@Suite("Production configuration", .timeLimit(.minutes(6)))
struct ProductionConfigurationTests {
  static func folder() throws -> String { try ScratchFolder.make("rs-credentials") }

  @Test func theTokenComesFromAFileTheEnvironmentOrASystemdCredentialInThatOrder() throws {
    let directory = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "ghp_fromCredential\n".write(toFile: directory + "/github-token", atomically: true, encoding: .utf8)
    try "ghp_fromFile\r\n".write(toFile: directory + "/token-file", atomically: true, encoding: .utf8)
    func token(_ arguments: [String], _ environment: [String: String]) throws -> String? {
      var configuration = AppConfiguration()
      _ = try configuration.parse(arguments: arguments, environment: environment)
      return configuration.githubToken
    }
    let credentials = ["CREDENTIALS_DIRECTORY": directory]
    try expectEqual(token([], credentials), "ghp_fromCredential")
    try expectEqual(token([], credentials.merging(["GITHUB_TOKEN": "ghp_env"]) { $1 }), "ghp_env")
    try expectEqual(
      token(["--github-token-file", directory + "/token-file"], ["GITHUB_TOKEN": "ghp_env"]), "ghp_fromFile")
    try expectEqual(token([], [:]), nil)
    try expectEqual(token([], ["CREDENTIALS_DIRECTORY": directory + "/none"]), nil)
  }

  @Test func unusableSecretFilesStopStartupWithTheirName() throws {
    let directory = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "\n".write(toFile: directory + "/github-token", atomically: true, encoding: .utf8)
    try String(repeating: "x", count: 70_000).write(
      toFile: directory + "/big", atomically: true, encoding: .utf8)
    var configuration = AppConfiguration()
    #expect(throws: OptionError.self) {
      _ = try configuration.parse(arguments: [], environment: ["CREDENTIALS_DIRECTORY": directory])
    }
    #expect(throws: OptionError.self) {
      _ = try configuration.parse(
        arguments: ["--github-token-file", directory + "/missing"], environment: [:])
    }
    #expect(throws: OptionError.self) { _ = try SecretSource.read(file: directory + "/big") }
    do {
      _ = try configuration.parse(
        arguments: ["--github-token-file", directory + "/missing"], environment: [:])
    } catch {
      expectTrue(error.description.contains("--github-token-file") && error.description.contains("missing"))
    }
  }

  @Test func operationsFlagsParse() throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(
      arguments: [
        "--trusted-proxies", "127.0.0.1,10.0.0.0/8", "--log-format", "json", "--instance=a1", "--version",
      ],
      environment: [:])
    expectEqual(configuration.trustedProxies.networks.count, 2)
    expectEqual(configuration.logFormat, .json)
    expectEqual(configuration.instance, "a1")
    expectTrue(configuration.showVersion)
    var environment = AppConfiguration()
    _ = try environment.parse(arguments: [], environment: ["TRUSTED_PROXIES": "::1", "LOG_FORMAT": "text"])
    expectEqual(environment.trustedProxies.networks.count, 1)
    for bad in [["--trusted-proxies", "10.0.0.0/40"], ["--log-format", "xml"]] {
      var c = AppConfiguration()
      #expect(throws: OptionError.self) { _ = try c.parse(arguments: bad, environment: [:]) }
    }
    expectTrue(AppConfiguration.helpText.contains("--trusted-proxies"))
    expectTrue(AppConfiguration.helpText.contains("CREDENTIALS_DIRECTORY"))
    expectTrue(
      BuildInfo.versionLine.wholeMatch(of: #/repo-scroll \d+\.\d+\.\d+ \(commit [0-9a-z-]+\)/#) != nil)
  }
}
