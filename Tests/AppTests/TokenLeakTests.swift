import App
import CurlClient
import Foundation
import GitHubDouble
import HTTP
import Synchronization
import TestSupport
import Testing

/// The GitHub token reaches the API host and nothing else: no response head or body on any route
/// (errors and upstream faults included, and an upstream that echoes it back), no log line, and
/// never the avatar host.
@Suite("Token", .serialized, .timeLimit(.minutes(6)))
struct TokenLeakTests {
  /// Distinctive, so that any 8-character piece of it found in output is a leak and not a coincidence.
  static let token = "ghp_Zq7LEAKx9Wv3Tk2Rj8Pm4Nc6Yb1Hd5Fs0Ga"

  /// Every 8-character window of the token.
  static let pieces: [String] = {
    let characters = Array(token)
    return (0...(characters.count - 8)).map { String(characters[$0..<($0 + 8)]) }
  }()

  /// The first piece of the token found in `text`, if any.
  static func leak(in text: String) -> String? { pieces.first { text.contains($0) } }

  /// Collected response heads and bodies, with the request that produced each.
  final class Seen: Sendable {
    private let texts = Mutex<[(target: String, text: String)]>([])
    var all: [(target: String, text: String)] { texts.withLock { $0 } }
    func add(_ target: String, _ text: String) { texts.withLock { $0.append((target, text)) } }
  }

  @Test func theTokenReachesOnlyTheAPIAndNeverAnyResponseOrLogLine() async throws {
    let seen = Seen()
    try await RecordingUpstream.withApp(live: true, configure: { $0.githubToken = Self.token }) {
      h, upstream in
      func fetch(_ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) async throws {
        let response = try await h.request(method, target, headers: headers)
        var text = "\(response.status.code)\n"
        for field in response.headers { text += field.name + ": " + field.value + "\n" }
        seen.add(target, text + "\n" + String(decoding: response.body, as: UTF8.self))
      }
      func control(_ path: String) async throws { try await h.control(.post, path) }

      let first = try await h.text("/?q=language%3Apython&sort=stars")
      seen.add("first page", first)
      let login = try #require(first.firstMatch(of: #/<a href="/owners/([A-Za-z0-9-]+)">More from/#)).1
      let stars = first.matches(of: #/data-stargazers="([^"]+)"/#).map { String($0.1) }
      expectTrue(stars.count >= 12)
      let avatar = try #require(first.firstMatch(of: #/<img src="(/avatars/\d+)\?s=80"/#)).1
      let css = try #require(first.firstMatch(of: #/href="(/static/app\.[0-9a-f]{8}\.css)"/#)).1

      // Every route, fault-free, with its error answers.
      let routes = [
        "/", "/?q=language%3Apython&sort=stars&page=2",
        "/fragments/results?q=language%3Apython&sort=stars&after=20",
        "/fragments/results?q=language%3Apython&sort=stars&after=1000", "/owners/\(login)",
        "/owners/\(login)?page=2",
        "/fragments/owners/\(login)?after=0", "/fragments/owners/\(login)?after=20", stars[0],
        "/fragments/stars/nobody-here/nothing", "\(avatar)?s=80", "\(avatar)?s=160", "/avatars/987654?s=40",
        "/healthz", "/metrics", String(css), "/static/missing.css", "/nope",
        "/?q=swift&sort=javascript%3Aalert(1)", "/?q=\(String(repeating: "a", count: 257))",
        "/fragments/results?after=0", "/fragments/results?q=swift&after=-1",
        "/fragments/results?q=swift&order=up",
        "/owners/-bad-", "/fragments/owners/a--b", "/fragments/stars/-x/y", "/avatars/abc", "/avatars/0",
        "/?q=stars%3A%3E9223372036854775807", "/?q=%22unterminated",
      ]
      for target in routes { try await fetch(target) }
      try await fetch(
        "/fragments/results?q=language%3Apython&after=40", headers: ["Sec-Fetch-Mode": "navigate"])
      try await fetch(stars[0], headers: ["Sec-Fetch-Mode": "navigate"])
      try await fetch("\(avatar)?s=80", headers: ["If-None-Match": "*"])
      try await fetch("/", method: .head)
      try await fetch("/healthz", method: .post)
      let malformed = try await RawRequest.get(port: h.port, target: "/ HTTP/1.1\r\nBad Header Line")
      seen.add("malformed", "\(malformed.status)\n" + malformed.text)

      // The double's faults, each on requests it has not cached yet.
      let faults = ["rate5xx=1", "truncated=1", "hang=1&hangLimit=100"]
      for (index, fault) in faults.enumerated() {
        try await control("/_double/faults?\(fault)")
        let language = ["go", "rust", "java"][index]
        try await fetch("/?q=language%3A\(language)&sort=forks")
        try await fetch("/fragments/results?q=language%3A\(language)&after=20")
        try await fetch("/fragments/owners/\(login)?after=40")
        try await fetch(stars[1 + index])
        try await fetch("\(avatar)?s=\(90 + index)")
        try await control("/_double/faults?rate5xx=0&truncated=0&hang=0")
      }

      // An upstream that echoes the Authorization header back in errors, bodies and headers.
      upstream.setOverride { request in
        guard let authorization = request.headers["Authorization"] else { return nil }
        let padded = String(repeating: "x", count: 280) + authorization
        let status: Int
        let message: String
        switch request.queryValue("q") ?? "" {
        case "reflect-a": (status, message) = (422, "Validation Failed for \(authorization)")
        case "reflect-b": (status, message) = (401, "Bad credentials: \(authorization)")
        case "reflect-c": (status, message) = (403, "Resource not accessible by \(authorization)")
        case "reflect-d": (status, message) = (422, padded)
        default: (status, message) = (500, "Internal error while using \(authorization)")
        }
        let body =
          #"{"message":"\#(message)","documentation_url":"https://docs.github.com/\#(authorization)"}"#
        return HTTPResponse(
          status: HTTPStatus(code: status),
          headers: [
            "Content-Type": "application/json", "X-Echo": authorization, "ETag": "\"\(authorization)\"",
          ],
          body: .bytes(Array(body.utf8)))
      }
      let echoedBefore = upstream.seen(pathPrefix: "/search/").count
      for q in ["reflect-a", "reflect-b", "reflect-c", "reflect-d", "reflect-e"] {
        try await fetch("/?q=\(q)")
        try await fetch("/fragments/results?q=\(q)&sort=stars&after=0")
      }
      try await fetch(stars[5])
      expectTrue(
        upstream.seen(pathPrefix: "/search/").count >= echoedBefore + 10, "the echoing upstream was asked")
      upstream.setOverride(nil)

      // Secondary and primary rate limits last: they block the resources locally afterwards.
      try await control("/_double/faults?secondary=1&retryAfter=30")
      try await fetch("/fragments/results?q=language%3Aruby&after=0")
      try await fetch(stars[6])
      try await control("/_double/faults?secondary=0")
      try await control("/_double/ratelimit?resource=search&remaining=0")
      try await control("/_double/ratelimit?resource=core&remaining=0")
      try await fetch("/fragments/results?q=language%3Aphp&after=0")
      try await fetch("/?q=language%3Aphp")
      try await fetch(stars[7])
      try await fetch("/metrics")

      for (target, text) in seen.all {
        expectEqual(Self.leak(in: text), nil, "a piece of the token in the answer to \(target)")
      }
      let logs = h.logs.all
      expectTrue(logs.count >= seen.all.count / 2, "the log was written")
      expectTrue(logs.contains { $0.contains(" - - 400 ") }, "the malformed request was logged by the server")
      for line in logs { expectEqual(Self.leak(in: line), nil, "log line \(line)") }

      // Not vacuous: the API did get the token, on every call; the avatar host never did.
      let api = upstream.seen.filter { $0.target.hasPrefix("/search/") || $0.target.hasPrefix("/repos/") }
      expectTrue(api.count >= 20)
      expectTrue(api.allSatisfy { $0.headers["Authorization"] == "Bearer \(Self.token)" })
      let avatars = upstream.seen(pathPrefix: "/u/")
      expectTrue(avatars.count >= 4)
      expectTrue(avatars.allSatisfy { $0.headers["Authorization"] == nil })
      expectTrue(avatars.allSatisfy { $0.headers.allSatisfy { Self.leak(in: $0.value) == nil } })
    }
  }

  /// A token typed into the search box is the reader's own text: the page may show it, the log not.
  @Test func aTokenTypedAsAQueryIsRedactedInTheLog() async throws {
    try await RecordingUpstream.withApp(live: true, configure: { $0.githubToken = Self.token }) { h, _ in
      _ = try await h.get("/?q=\(Self.token)")
      _ = try await h.get("/fragments/results?q=\(Self.token)&after=0")
      let lines = h.logs.all
      expectTrue(lines.count >= 2)
      for line in lines { expectTrue(!line.contains(Self.token), "log line \(line)") }
      expectTrue(lines.contains { $0.contains("[redacted]") })
    }
  }

  /// The token written with each character as a JSON `\uXXXX` escape (`upper` for hex case).
  static func jsonEscaped(_ text: String, upper: Bool = false) -> String {
    text.unicodeScalars.map { scalar in
      let hex = String(scalar.value, radix: 16, uppercase: upper)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }.joined()
  }

  /// The token with each character percent-encoded.
  static func percentEncoded(_ text: String) -> String {
    text.utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
  }

  /// Every other character escaped, alternating JSON and percent forms.
  static func mixed(_ text: String) -> String {
    Array(text).enumerated().map { index, character in
      switch index % 3 {
      case 0: return jsonEscaped(String(character))
      case 1: return percentEncoded(String(character))
      default: return String(character)
      }
    }.joined()
  }

  /// A hostile upstream that echoes the token it was sent inside successful answers: in plain text, in
  /// JSON escapes, percent-encoded, and with a `\u` escape placed across the 300-character cut of an
  /// error message. None of it may reach a page, a header or a log line.
  @Test func aTokenEchoedInSuccessfulAnswersIsRedactedInEveryForm() async throws {
    let seen = Seen()
    try await RecordingUpstream.withApp(live: true, configure: { $0.githubToken = Self.token }) {
      h, upstream in
      upstream.setOverride { request in
        let path = request.target
        if path.hasPrefix("/u/") {
          return HTTPResponse(
            status: .ok, headers: ["Content-Type": "image/png", "ETag": "\"\(Self.token)\""],
            body: .bytes([0x89, 0x50, 0x4E, 0x47]))
        }
        if path.contains("/stargazers/history") {
          return HTTPResponse(
            status: HTTPStatus(code: 403), headers: ["Content-Type": "text/html"],
            body: .bytes(Array("<html>denied for \(Self.percentEncoded(Self.token))</html>".utf8)))
        }
        guard path.hasPrefix("/search/") else { return nil }
        let q = request.queryValue("q") ?? ""
        if q == "cut" {
          // The escaped token starts 290 characters in, so a cut at 300 falls inside it.
          let message = String(repeating: "y", count: 290) + Self.jsonEscaped(Self.token, upper: true)
          return HTTPResponse(
            status: HTTPStatus(code: 422), headers: ["Content-Type": "application/json"],
            body: .bytes(Array(#"{"message":"\#(message)"}"#.utf8)))
        }
        let forms = [
          Self.token, Self.jsonEscaped(Self.token), Self.jsonEscaped(Self.token, upper: true),
          Self.percentEncoded(Self.token), Self.mixed(Self.token), "Bearer " + Self.token,
        ]
        let items = forms.enumerated().map { index, form in
          """
          {"id":\(index + 1),"name":"n\(index)\(form)","full_name":"o/n\(index)","html_url":"https://github.com/o/\(form)","private":false,
          "owner":{"login":"o\(form)","id":\(index + 100),"avatar_url":"https://x/\(form)"},"description":"echo \(form) end",
          "language":"\(form)","stargazers_count":1,"forks_count":1,"open_issues_count":1,"topics":["\(form)"],
          "license":{"spdx_id":"\(form)"},"homepage":"https://\(form)","created_at":"2020-01-01T00:00:00Z",
          "updated_at":"2021-01-01T00:00:00Z"}
          """
        }
        let body =
          #"{"total_count":6,"incomplete_results":false,"items":["# + items.joined(separator: ",") + "]}"
        return HTTPResponse(
          status: .ok, headers: ["Content-Type": "application/json"], body: .bytes(Array(body.utf8)))
      }
      var pages: [String] = []
      for target in [
        "/?q=echo", "/fragments/results?q=echo&after=0", "/?q=cut", "/fragments/results?q=cut&after=0",
        "/fragments/stars/o/n0", "/avatars/100?s=80",
      ] {
        let response = try await h.get(target)
        var text = "\(response.status.code)\n"
        for field in response.headers { text += field.name + ": " + field.value + "\n" }
        text += String(decoding: response.body, as: UTF8.self)
        seen.add(target, text)
        pages.append(text)
      }
      expectTrue(pages[0].contains("echo [redacted] end"), "not vacuous: the echo was rendered, redacted")
      expectTrue(pages[0].components(separatedBy: "[redacted]").count > 12)
      expectTrue(pages[2].contains("yyyy[redacted]"), "the escaped token across the cut is redacted whole")
      for (target, text) in seen.all {
        expectEqual(Self.leak(in: text), nil, "a piece of the token in the answer to \(target)")
        expectTrue(
          !text.contains(Self.jsonEscaped(String(Self.token.prefix(8)))), "an escaped piece in \(target)")
        expectTrue(
          !text.contains(Self.percentEncoded(String(Self.token.prefix(8)))), "an encoded piece in \(target)")
      }
      for line in h.logs.all {
        expectEqual(Self.leak(in: line), nil, "log line \(line)")
      }
    }
  }
}
