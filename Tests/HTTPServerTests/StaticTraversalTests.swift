import Clocks
import Foundation
import HTTP
import HTTPServer
import TestSupport
import Testing

/// A temporary layout for escape attempts: `base/public` is the static root; `base/secret.txt`,
/// `base/outside/file` and `base/public-evil/secret.txt` hold a marker that must never be served.
/// Inside the root, `link-out` and `link-secret` point outside it, `link-sibling` at a sibling folder whose
/// name shares the root's prefix, and `link-in` and `link-in-file.txt` point inside it.
struct AttackRoot {
  /// Bytes that only files outside the root contain.
  static let marker = "TOP-SECRET-4b1d"
  /// The contents of `public/file.txt`.
  static let fileText = "plain file\n"
  let base: String
  let root: String

  init() throws {
    let fm = FileManager.default
    base = try ScratchFolder.make("attack")
    root = base + "/public"
    try fm.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
    try fm.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
    try fm.createDirectory(atPath: base + "/public-evil", withIntermediateDirectories: true)
    try "<h1>home</h1>".write(toFile: root + "/index.html", atomically: true, encoding: .utf8)
    try Self.fileText.write(toFile: root + "/file.txt", atomically: true, encoding: .utf8)
    try "inner\n".write(toFile: root + "/sub/inner.txt", atomically: true, encoding: .utf8)
    for path in ["/secret.txt", "/outside/file", "/public-evil/secret.txt"] {
      try Self.marker.write(toFile: base + path, atomically: true, encoding: .utf8)
    }
    try fm.createSymbolicLink(atPath: root + "/link-out", withDestinationPath: base + "/outside")
    try fm.createSymbolicLink(atPath: root + "/link-secret", withDestinationPath: "../secret.txt")
    try fm.createSymbolicLink(atPath: root + "/link-sibling", withDestinationPath: "../public-evil")
    try fm.createSymbolicLink(atPath: root + "/link-in", withDestinationPath: "sub")
    try fm.createSymbolicLink(atPath: root + "/link-in-file.txt", withDestinationPath: root + "/file.txt")
  }

  /// Deletes the whole layout.
  func remove() { try? FileManager.default.removeItem(atPath: base) }
}

@Suite(.timeLimit(.minutes(3))) struct StaticTraversalTests {
  /// Raw request targets (as sent on the wire) that try to leave the root; each must be a 404.
  static let escapes: [String] = [
    "/../secret.txt", "/..", "/../", "/./../secret.txt", "//../secret.txt",
    "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/%2e%2e", "/%2E%2E%2Fsecret.txt",
    "/%2e%2e%2f%2e%2e%2fsecret.txt",
    "/..%2fsecret.txt", "/..%2Fsecret.txt", "/.%2e/secret.txt", "/%2e./secret.txt",
    "/a/../../secret.txt", "/sub/../../secret.txt", "/sub/./../../secret.txt",
    "/sub/inner.txt/../../../secret.txt",
    "/%c0%ae%c0%ae/secret.txt", "/%c0%2e%c0%2e/secret.txt", "/%e0%80%ae%e0%80%ae/secret.txt",
    "/%c0%af..%c0%afsecret.txt",
    "/link-out/file", "/link-out/", "/link-secret", "/link-sibling/secret.txt",
    "/%00", "/file.txt%00", "/%00/../secret.txt", "/file.txt%00.html",
    "/..\\secret.txt", "/\\..\\secret.txt", "/sub\\..\\..\\secret.txt", "/..%5csecret.txt",
    "/..%5Csecret.txt",
    "/%252e%252e/secret.txt", "/..;/secret.txt", "/....//secret.txt", "/~/secret.txt", "/%",
    "/" + String(repeating: "../", count: 2000) + "secret.txt",
    "/" + String(repeating: "%2e%2e/", count: 1000) + "secret.txt",
    "/" + String(repeating: "a", count: 8000),
    "/" + String(repeating: "a/", count: 3500) + "file.txt",
  ]

  /// Inside the root: plain files, and symlinks that resolve inside the root, are served.
  static let inside: [(String, String)] = [
    ("/file.txt", AttackRoot.fileText), ("/sub/inner.txt", "inner\n"), ("/link-in/inner.txt", "inner\n"),
    ("/link-in-file.txt", AttackRoot.fileText), ("/./sub//inner.txt", "inner\n"),
    ("/%66ile.txt", AttackRoot.fileText),
  ]

  @Test(arguments: escapes)
  func escapeAttemptIsNotFound(_ target: String) async throws {
    let root = try AttackRoot()
    defer { root.remove() }
    let files = try StaticFiles(root: root.root, time: .system)
    for prefix in ["", "/static"] {
      let request = HTTPRequest(method: .get, target: prefix + target, headers: ["Host": "a"])
      let response = await files.response(for: request, urlPrefix: prefix)
      expectEqual(response.status, .notFound, "prefix \(prefix)")
      guard case .bytes(let body) = response.body else {
        Issue.record("streamed body")
        continue
      }
      expectTrue(!String(decoding: body, as: UTF8.self).contains(AttackRoot.marker))
    }
  }

  @Test func symlinksInsideTheRootAreServed() async throws {
    let root = try AttackRoot()
    defer { root.remove() }
    let files = try StaticFiles(root: root.root, time: .system)
    for (target, text) in Self.inside {
      let response = await files.response(
        for: HTTPRequest(method: .get, target: target, headers: ["Host": "a"]))
      guard case .bytes(let body) = response.body else {
        Issue.record("\(target): streamed body")
        continue
      }
      expectEqual(response.status, .ok, "\(target)")
      expectEqual(String(decoding: body, as: UTF8.self), text, "\(target)")
    }
    // A dot-dot segment is refused even when it would stay inside the root.
    let response = await files.response(for: HTTPRequest(method: .get, target: "/sub/../file.txt"))
    expectEqual(response.status, .notFound)
  }

  /// The same attempts over the wire, where the parser sees the raw bytes first; each is answered with
  /// 404 (or 400 for targets the parser refuses) and never with the secret.
  @Test func escapesOverTheWireNeverReturnTheSecret() async throws {
    let root = try AttackRoot()
    defer { root.remove() }
    let files = try StaticFiles(root: root.root, time: .system)
    let escapes = Self.escapes
    let answers = try await withLiveServer(handler: { request, _ in await files.response(for: request) }) {
      live in
      try await onThread { () -> [(String, Int, Bool)] in
        let client = try RawSocketClient(port: live.port)
        return try escapes.map { target in
          let response = try client.request("GET", target)
          return (target, response.status, response.text.contains(AttackRoot.marker))
        }
      }
    }
    for (target, status, secret) in answers {
      expectEqual(status, 404, "\(target.prefix(80))")
      expectTrue(!secret, "\(target.prefix(80))")
    }
  }
}
