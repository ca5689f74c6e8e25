import App
import Clocks
import CurlClient
import Encodings
import Foundation
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// A private CA and `openssl s_server` on loopback, standing in for GitHub Enterprise Server.
/// (`s_server -HTTP` answers each request with the file named by its target, query included.)
struct TLSFixture {
  let directory: String
  let server: ProcessRunner
  let port: Int
  var caFile: String { directory + "/ca.pem" }

  /// Makes a CA and a server certificate for 127.0.0.1 in a temp dir, and serves `files`
  /// (request target → complete HTTP response) over TLS.
  static func start(files: [String: [UInt8]]) async throws -> TLSFixture {
    let directory = try ScratchFolder.make("tls")
    let www = directory + "/www"
    try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
    try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).write(
      to: URL(fileURLWithPath: directory + "/ext"))
    let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    let steps: [[String]] = [
      ["req", "-x509"] + curve + [
        "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Test CA",
      ],
      ["req"] + curve + ["-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=127.0.0.1"],
      [
        "x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
        "srv.pem", "-days", "2", "-extfile", "ext",
      ],
    ]
    for step in steps {
      let run = try ProcessRunner(executable: "openssl", arguments: step, workingDirectory: directory)
      let status = try await run.waitForExit(timeout: .seconds(30))
      guard status == .exited(0) else {
        throw WebDriverError.process("openssl \(step[0]): \(run.transcript)")
      }
    }
    for (target, response) in files {
      let path = www + "/" + target.drop { $0 == "/" }
      let folder = (path as NSString).deletingLastPathComponent
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try Data(response).write(to: URL(fileURLWithPath: path))
    }
    let server = try ProcessRunner(
      executable: "openssl",
      arguments: [
        "s_server", "-accept", "127.0.0.1:0", "-cert", directory + "/srv.pem", "-key", directory + "/srv.key",
        "-HTTP",
      ], workingDirectory: www, name: "s_server")
    let port = try await server.waitForListeningPort(pattern: #"ACCEPT 127\.0\.0\.1:(\d+)"#)
    return TLSFixture(directory: directory, server: server, port: port)
  }

  func stop() async {
    await server.terminate()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

/// `--ca-file` lets the app trust a private CA (GitHub Enterprise Server, TLS proxies); without it the
/// TLS failure is logged with libcurl's reason.
@Suite("TLS", .serialized, .timeLimit(.minutes(6)))
struct TLSTests {
  static let query = "language:swift"

  /// A real search answer from the double, saved as the file s_server returns for the page's request.
  static func searchFile() async throws -> [String: [UInt8]] {
    let target =
      "/search/repositories?" + URLEncoding.formatQuery([("q", query), ("per_page", "100"), ("page", "1")])
    let enterprisePath = "/api/v3" + target
    let http = CurlHTTPClient()
    defer { http.shutdown() }
    let port = try AppHarness.sharedPort()
    let answer = try await http.execute(ClientRequest(url: "http://127.0.0.1:\(port)\(target)"))
    expectEqual(answer.status.code, 200)
    let head = "HTTP/1.0 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
    return [enterprisePath: Array(head.utf8) + answer.body]
  }

  @Test func untrustedCertificateIsLoggedAndTrustedWithCAFile() async throws {
    let tls = try await TLSFixture.start(files: try await Self.searchFile())
    defer { Task { await tls.stop() } }
    // Shaped like GitHub Enterprise Server: the REST root is /api/v3 on the instance's own host.
    let base = "https://127.0.0.1:\(tls.port)/api/v3"
    let page = "/?q=" + URLEncoding.percentEncode(Self.query)
    try await AppHarness.with(
      live: true,
      configure: {
        $0.githubAPI = base
        $0.githubToken = "ghp_tlsTestSecret9876"
      }
    ) { h in
      let body = try await h.text(page)
      expectTrue(HTMLScan.cards(body).isEmpty)
      let failures = h.logs.all.filter { $0.contains("upstream GET \(base)/search/repositories failed") }
      expectEqual(failures.count, 1, "\(h.logs.all)")
      expectEqual(
        failures.first?.contains("SSL certificate problem: unable to get local issuer certificate"), true)
      expectTrue(!h.logs.all.joined().contains("ghp_tlsTestSecret9876"))
    }
    try await AppHarness.with(
      live: true,
      configure: {
        $0.githubAPI = base
        $0.caFile = tls.caFile
      }
    ) { h in
      let body = try await h.text(page)
      expectEqual(HTMLScan.cards(body).count, 20, "\(h.logs.all)")
      expectTrue(!h.logs.all.contains { $0.contains("upstream GET") })
    }
  }

  @Test func unreadableCAFileStopsStartup() throws {
    var configuration = AppConfiguration()
    configuration.caFile = "/nonexistent/ca.pem"
    configuration.templatesDirectory = try ProcessRunner.packageRoot() + "/Templates"
    configuration.publicDirectory = try ProcessRunner.packageRoot() + "/Public"
    #expect(throws: RepoScrollApp.StartupError.self) {
      _ = try RepoScrollApp(configuration: configuration, time: .system)
    }
  }
}
