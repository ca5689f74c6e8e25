import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

/// What a cluster needs before it starts for readers to sign in through nginx with the double's OAuth
/// side: a session key file, nginx's port fixed ahead (the public URL), and the instances' sign-in
/// flags and client secret.
///
///     let sign = try SignInSite(clientID: "Iv1.demo-client", clientSecret: "demo-secret")
///     defer { sign.removeKeyFile() }
///     let cluster = try await Cluster.start(withNginx: true, nginxPort: sign.nginxPort, extra: sign.extra)
struct SignInSite {
  let nginxPort: Int
  let keyFile: String
  let extra: Cluster.InstanceExtras
  /// The public URL: nginx on loopback.
  var site: String { "http://127.0.0.1:\(nginxPort)" }

  /// `keyByte` (two hex digits) fills the 32-byte session key; `arguments` go after the sign-in flags.
  init(keyByte: String = "6b", clientID: String, clientSecret: String, arguments: [String] = []) throws {
    nginxPort = try ProcessRunner.freeLoopbackPort()
    keyFile = NSTemporaryDirectory() + "session-key-\(UUID().uuidString.prefix(8))"
    try String(repeating: keyByte, count: 32).write(toFile: keyFile, atomically: true, encoding: .utf8)
    var extra = Cluster.InstanceExtras()
    extra.environment = ["GITHUB_CLIENT_SECRET": clientSecret]
    extra.arguments =
      [
        "--github-client-id", clientID, "--public-url", "http://127.0.0.1:\(nginxPort)", "--github-web-url",
        "{double}", "--session-key-file", keyFile,
      ] + arguments
    self.extra = extra
  }

  /// Three instances behind nginx on this site, sharing one Redis that persists every write (AOF,
  /// fsync always), as the README asks for sessions.
  func persistentCluster() async throws -> Cluster {
    try await Cluster.start(
      instances: 3, shared: true, withNginx: true, nginxPort: nginxPort,
      redisArguments: ["--appendonly", "yes", "--appendfsync", "always"], extra: extra)
  }

  func removeKeyFile() { try? FileManager.default.removeItem(atPath: keyFile) }
}

extension SignInClusterTests {
  /// One pass through sign-in: `/login` on `site`, the double's Authorize form as `login`, and the
  /// callback back into `jar`; each step's answer, for the caller's expectations.
  struct SignedIn {
    let authorize: String
    let callback: String
    let landed: ClientResponse
  }

  static func signIn(
    _ login: String, site: String, double: String, path: String = "/login", into jar: Jar
  ) async throws -> SignedIn {
    let start = try await send(site + path, jar)
    let authorize = try #require(start.headers["Location"])
    let query = try #require(authorize.split(separator: "?", maxSplits: 1).last.map(String.init))
    let consent = try await send(
      double + "/login/oauth/authorize", Jar(), method: .post,
      form: query + "&login=\(login)&action=authorize")
    let callback = try #require(consent.headers["Location"])
    return SignedIn(authorize: authorize, callback: callback, landed: try await send(callback, jar))
  }
}

extension Cluster {
  /// Runs `body` on the cluster and stops it afterwards, whether `body` threw or not.
  func run(_ body: (Cluster) async throws -> Void) async throws {
    do {
      try await body(self)
    } catch {
      await stop()
      throw error
    }
    await stop()
  }
}
