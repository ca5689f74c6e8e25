import Testing

/// One malformed or hostile request and the exact answer the server owes it.
struct HostileCase: Sendable, CustomTestStringConvertible {
  /// What the case tries, shown as the test's name.
  let name: String
  /// The bytes sent at once (they may hold several pipelined requests, NUL or non-UTF-8 bytes).
  let bytes: [UInt8]
  /// The status of every answer, in order.
  let statuses: [Int]
  /// True when the server must close after the last answer (and mark it `Connection: close`); false when
  /// the connection must stay usable for a follow-up request.
  let closes: Bool
  /// True when the last request is HEAD, so its answer has no body.
  var head = false

  var testDescription: String { name }

  /// A request the server must refuse with `status` and then close.
  static func rejected(_ name: String, _ text: String, _ status: Int) -> HostileCase {
    HostileCase(name: name, bytes: Array(text.utf8), statuses: [status], closes: true)
  }

  /// Raw bytes the server must refuse with `status` and then close.
  static func rejected(_ name: String, bytes: [UInt8], _ status: Int) -> HostileCase {
    HostileCase(name: name, bytes: bytes, statuses: [status], closes: true)
  }

  /// A valid (if odd) request answered with `statuses`; the connection stays open unless `closes`.
  static func served(_ name: String, _ text: String, _ statuses: Int..., closes: Bool = false) -> HostileCase
  {
    HostileCase(name: name, bytes: Array(text.utf8), statuses: statuses, closes: closes)
  }
}

/// The corpus. The server under test routes `GET /hello`, `POST /echo` and `GET /users/{name}` and serves
/// everything else from a static root holding `index.html`, `file.txt` and a symlink `link-out` that points
/// outside the root, next to `secret.txt` (see `AttackRoot`). Limits are the defaults (request line 8 KiB,
/// header section 16 KiB, 100 fields, body 16 KiB); the header timeout is 1 s.
///
/// Decisions where RFC 9112 leaves a choice: bare LF line endings are rejected (400) wherever they appear,
/// the server never accepts chunked request bodies (411, or 400 when chunked is not the final coding),
/// HTTP/1.x minor versions other than 0 and 1 get 505, and unknown methods get 405.
enum HostileCorpus {
  static let host = "Host: a\r\n"

  static func get(_ target: String, _ extra: String = "") -> String {
    "GET \(target) HTTP/1.1\r\n\(host)\(extra)\r\n"
  }

  static func post(_ extra: String, body: String = "") -> String {
    "POST /echo HTTP/1.1\r\n\(host)\(extra)\r\n\(body)"
  }

  static let requestLines: [HostileCase] = [
    .rejected("leading space before the method", " GET /hello HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("method only", "GET\r\n\(host)\r\n", 400),
    .rejected("no version (HTTP/0.9 style)", "GET /hello\r\n\(host)\r\n", 400),
    .rejected("no target", "GET HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("two spaces after the method", "GET  /hello HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("two spaces before the version", "GET /hello  HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("space after the version", "GET /hello HTTP/1.1 \r\n\(host)\r\n", 400),
    .rejected("tab as separator", "GET\t/hello HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("space inside the target", "GET /hel lo HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("lowercase version", "GET /hello http/1.1\r\n\(host)\r\n", 400),
    .rejected("HTTPS as protocol name", "GET /hello HTTPS/1.1\r\n\(host)\r\n", 400),
    .rejected("two-digit minor version", "GET /hello HTTP/1.10\r\n\(host)\r\n", 400),
    .rejected("version without minor", "GET /hello HTTP/1.\r\n\(host)\r\n", 400),
    .rejected("HTTP/2.0", "GET /hello HTTP/2.0\r\n\(host)\r\n", 505),
    .rejected("HTTP/0.9 version", "GET /hello HTTP/0.9\r\n\(host)\r\n", 505),
    .rejected("HTTP/1.2", "GET /hello HTTP/1.2\r\n\(host)\r\n", 505),
    .rejected("HTTP/2 connection preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    .rejected("method with a bracket", "GE(T /hello HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("method with NUL", "GE\u{0}T /hello HTTP/1.1\r\n\(host)\r\n", 400),
    .served("lowercase method on a route", "get /hello HTTP/1.1\r\n\(host)\r\n", 405),
    .served("unknown method on a route", "BREW /hello HTTP/1.1\r\n\(host)\r\n", 405),
    .served("unknown method on a static file", "PROPFIND /file.txt HTTP/1.1\r\n\(host)\r\n", 405),
    .served(
      "2000-character method", String(repeating: "X", count: 2000) + " /hello HTTP/1.1\r\n\(host)\r\n", 405),
    .rejected(
      "9000-character method", String(repeating: "X", count: 9000) + " /hello HTTP/1.1\r\n\(host)\r\n", 414),
    .rejected("9000-byte target", get("/" + String(repeating: "a", count: 9000)), 414),
    .rejected("request line that never ends", "GET /" + String(repeating: "a", count: 10000), 414),
    .served("8000-byte target (legal)", get("/" + String(repeating: "a", count: 8000)), 404),
    .rejected(
      "TLS ClientHello",
      bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 13, 10, 13, 10],
      400),
    .rejected(
      "raw non-UTF-8 bytes in the target",
      bytes: Array("GET /".utf8) + [0xff, 0xfe] + Array(" HTTP/1.1\r\n\(host)\r\n".utf8), 400),
  ]

  static let lineEndings: [HostileCase] = [
    .rejected("bare LF everywhere", "GET /hello HTTP/1.1\nHost: a\n\n", 400),
    .rejected("bare LF after the request line", "GET /hello HTTP/1.1\n\(host)\r\n", 400),
    .rejected("bare LF ending a header", "GET /hello HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n", 400),
    .rejected("bare LF as the final empty line", "GET /hello HTTP/1.1\r\n\(host)\n", 400),
    .rejected("bare CR inside the request line", "GET /hello\rHTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("bare CR ending the request line", "GET /hello HTTP/1.1\r\(host)\r\n", 400),
    .rejected("bare CR inside a header value", get("/hello", "X: a\rb\r\n"), 400),
    .served("one empty line before the request", "\r\n" + get("/hello"), 200),
    .rejected("bare LF before the request", "\n" + get("/hello"), 400),
    .rejected(
      "5000 empty lines before the request", String(repeating: "\r\n", count: 5000) + get("/hello"), 400),
    .rejected("empty lines then silence (header timeout)", "\r\n\r\n", 408),
    .rejected("head never finished (header timeout)", "GET /hello HTTP/1.1\r\n\(host)", 408),
  ]

  static let controlBytes: [HostileCase] = [
    .rejected("NUL in the target", "GET /he\u{0}llo HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("NUL in a header name", get("/hello", "X\u{0}Y: 1\r\n"), 400),
    .rejected("NUL in a header value", get("/hello", "X: a\u{0}b\r\n"), 400),
    .rejected("SOH in a header value", get("/hello", "X: a\u{1}b\r\n"), 400),
    .rejected("ESC in the target", "GET /he\u{1b}llo HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("DEL in the target", "GET /he\u{7f}llo HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("DEL in a header value", get("/hello", "X: \u{7f}\r\n"), 400),
    .served("tab inside a header value", get("/hello", "X: a\tb\r\n"), 200),
    HostileCase(
      name: "obs-text byte in a header value",
      bytes: Array(get("/hello").utf8.dropLast(2)) + Array("X: caf".utf8) + [0xe9]
        + Array("\r\n\r\n".utf8), statuses: [200], closes: false),
    .rejected(
      "non-ASCII header name",
      bytes: Array("GET /hello HTTP/1.1\r\n\(host)".utf8) + [0xc3, 0xa9] + Array(": 1\r\n\r\n".utf8), 400),
  ]

  static let headerFields: [HostileCase] = [
    .rejected("obs-fold continuation line", get("/hello", "X: a\r\n b\r\n"), 400),
    .rejected("obs-fold with a tab", get("/hello", "X: a\r\n\tb\r\n"), 400),
    .rejected("first field folded", "GET /hello HTTP/1.1\r\n \(host)\r\n", 400),
    .rejected("space before the colon", "GET /hello HTTP/1.1\r\nHost : a\r\n\r\n", 400),
    .rejected("tab before the colon", get("/hello", "X\t: 1\r\n"), 400),
    .rejected("field without a colon", get("/hello", "NoColon\r\n"), 400),
    .rejected("empty field name", get("/hello", ": 1\r\n"), 400),
    .rejected(
      "20 KiB header value", get("/hello", "X: " + String(repeating: "v", count: 20000) + "\r\n"), 431),
    .rejected(
      "40 fields of 500 bytes (section over 16 KiB)",
      get("/hello", String(repeating: "X: " + String(repeating: "v", count: 500) + "\r\n", count: 40)), 431),
    .rejected("101 fields", get("/hello", String(repeating: "X: 1\r\n", count: 100)), 431),
    .served("exactly 100 fields", get("/hello", String(repeating: "X: 1\r\n", count: 99)), 200),
    .served(
      "12 KiB header value (within limits)",
      get("/hello", "X: " + String(repeating: "v", count: 12000) + "\r\n"), 200),
    .rejected("no Host in HTTP/1.1", "GET /hello HTTP/1.1\r\n\r\n", 400),
    .rejected("two different Host fields", get("/hello", "Host: b\r\n"), 400),
    .rejected("two equal Host fields", get("/hello", host), 400),
    .served("HTTP/1.0 without Host", "GET /hello HTTP/1.0\r\n\r\n", 200, closes: true),
    .served("Connection: close is honoured", get("/hello", "Connection: close\r\n"), 200, closes: true),
    HostileCase(
      name: "HEAD on a route", bytes: Array("HEAD /hello HTTP/1.1\r\n\(host)\r\n".utf8), statuses: [200],
      closes: false, head: true),
  ]

  static let contentLength: [HostileCase] = [
    .rejected("negative Content-Length", post("Content-Length: -4\r\n", body: "ping"), 400),
    .rejected("Content-Length with a plus sign", post("Content-Length: +4\r\n", body: "ping"), 400),
    .rejected("non-digit Content-Length", post("Content-Length: four\r\n", body: "ping"), 400),
    .rejected("hex Content-Length", post("Content-Length: 0x4\r\n", body: "ping"), 400),
    .rejected("empty Content-Length", post("Content-Length: \r\n", body: "ping"), 400),
    .rejected("20-digit Content-Length", post("Content-Length: 99999999999999999999\r\n", body: "ping"), 400),
    .rejected("Content-Length of 2^63", post("Content-Length: 9223372036854775808\r\n", body: "ping"), 400),
    .rejected("Content-Length over the body limit", post("Content-Length: 20000\r\n"), 413),
    .rejected(
      "two differing Content-Length fields",
      post("Content-Length: 4\r\nContent-Length: 5\r\n", body: "ping!"), 400),
    .served(
      "two equal Content-Length fields", post("Content-Length: 4\r\nContent-Length: 4\r\n", body: "ping"), 200
    ),
    .served("Content-Length list of equal values", post("Content-Length: 4, 4\r\n", body: "ping"), 200),
    .rejected(
      "Content-Length list of differing values", post("Content-Length: 4, 5\r\n", body: "ping!"), 400),
    .rejected("Content-Length with an inner space", post("Content-Length: 4 4\r\n", body: "ping"), 400),
    .rejected("Content-Length with a trailing comma", post("Content-Length: 4,\r\n", body: "ping"), 400),
    .served("Content-Length with leading zeros", post("Content-Length: 0004\r\n", body: "ping"), 200),
    .rejected(
      "body shorter than Content-Length (header timeout)", post("Content-Length: 10\r\n", body: "pin"), 408),
    .served(
      "GET with a body is framed by Content-Length", get("/hello", "Content-Length: 5\r\n") + "hello", 200),
    .rejected(
      "Expect: 100-continue with a body over the limit",
      post("Expect: 100-continue\r\nContent-Length: 20000\r\n"), 413),
  ]

  static let transferEncoding: [HostileCase] = [
    .rejected(
      "chunked without Content-Length",
      post("Transfer-Encoding: chunked\r\n", body: "4\r\nping\r\n0\r\n\r\n"), 411),
    .rejected("CHUNKED in capitals", post("Transfer-Encoding: CHUNKED\r\n", body: "0\r\n\r\n"), 411),
    .rejected("gzip only (chunked not final)", post("Transfer-Encoding: gzip\r\n", body: "ping"), 400),
    .rejected("chunked, identity", post("Transfer-Encoding: chunked, identity\r\n", body: "0\r\n\r\n"), 400),
    .rejected("identity", post("Transfer-Encoding: identity\r\n", body: "ping"), 400),
    .rejected(
      "chunked then gzip in two fields", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n"),
      400),
    .rejected(
      "vertical tab before chunked", post("Transfer-Encoding: \u{0b}chunked\r\n", body: "0\r\n\r\n"), 400),
    .rejected(
      "chunked in HTTP/1.0", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    .rejected(
      "space before the colon of Transfer-Encoding",
      post("Transfer-Encoding : chunked\r\nContent-Length: 4\r\n", body: "ping"), 400),
  ]

  /// A GET whose body is itself a complete request; only the outer one may be answered.
  static var hiddenRequest: String {
    let inner = get("/file.txt")
    return get("/hello", "Content-Length: \(inner.utf8.count)\r\n") + inner
  }

  static let smuggling: [HostileCase] = [
    .rejected(
      "CL.TE smuggling",
      post("Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", body: "0\r\n\r\nG") + get("/hello"), 400),
    .rejected(
      "TE.CL smuggling",
      post(
        "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n", body: "5c\r\nGPOST / HTTP/1.1\r\n\r\n0\r\n\r\n"
      ),
      400),
    .rejected(
      "TE hidden by obs-fold",
      post("Content-Length: 4\r\nX: a\r\n Transfer-Encoding: chunked\r\n", body: "ping"), 400),
    .rejected(
      "TE with a tab before the name",
      post("Content-Length: 4\r\n\tTransfer-Encoding: chunked\r\n", body: "ping"), 400),
    .served(
      "Transfer_Encoding with an underscore is just a field",
      post("Transfer_Encoding: chunked\r\nContent-Length: 4\r\n", body: "ping"), 200),
    .served("request hidden in a body is not run", hiddenRequest, 200),
    .rejected("pipelined request after a bad one is not served", "GARBAGE\r\n\r\n" + get("/hello"), 400),
    .rejected(
      "pipelined request after a 413 is not served", post("Content-Length: 20000\r\n") + get("/hello"), 413),
    .served("good request then a bad one", get("/hello") + "GET / HTTP/1.1\r\n\r\n", 200, 400, closes: true),
    .served(
      "three pipelined good requests", get("/hello") + get("/file.txt") + get("/nothing"), 200, 200, 404),
  ]

  static let targets: [HostileCase] = [
    .served("absolute-form target", "GET http://evil.example/hello HTTP/1.1\r\n\(host)\r\n", 200),
    .served(
      "absolute-form with an uppercase https scheme",
      "GET HTTPS://EVIL.EXAMPLE/hello HTTP/1.1\r\n\(host)\r\n", 200),
    .served("absolute-form traversal", "GET http://evil.example/../secret.txt HTTP/1.1\r\n\(host)\r\n", 404),
    .rejected("absolute-form without Host", "GET http://evil.example/hello HTTP/1.1\r\n\r\n", 400),
    .rejected(
      "absolute-form with an ftp scheme", "GET ftp://evil.example/hello HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected(
      "authority-form CONNECT", "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n", 400),
    .rejected("authority-form with GET", "GET evil.example:80 HTTP/1.1\r\n\(host)\r\n", 400),
    .served("asterisk-form OPTIONS", "OPTIONS * HTTP/1.1\r\n\(host)\r\n", 405),
    .rejected("asterisk-form with GET", "GET * HTTP/1.1\r\n\(host)\r\n", 400),
    .rejected("target without a leading slash", "GET hello HTTP/1.1\r\n\(host)\r\n", 400),
    .served("dot-dot", get("/../secret.txt"), 404),
    .served("%2e%2e", get("/%2e%2e/secret.txt"), 404),
    .served("%2E%2E%2F", get("/%2E%2E%2Fsecret.txt"), 404),
    .served("..%2f", get("/..%2fsecret.txt"), 404),
    .served(".%2e", get("/.%2e/secret.txt"), 404),
    .served("%00 after a file name", get("/file.txt%00.html"), 404),
    .served("%c0%ae overlong UTF-8 dots", get("/%c0%ae%c0%ae/secret.txt"), 404),
    .served("%e0%80%ae three-byte overlong dots", get("/%e0%80%ae%e0%80%ae/secret.txt"), 404),
    .served("raw backslashes", get("/..\\secret.txt"), 404),
    .served("%5c encoded backslash", get("/..%5csecret.txt"), 404),
    .served("double-encoded dot-dot", get("/%252e%252e/secret.txt"), 404),
    .served("2000 dot-dot segments", get("/" + String(repeating: "../", count: 2000) + "secret.txt"), 404),
    .served("symlink out of the root", get("/link-out/file"), 404),
    .served("bad percent escape in a static path", get("/%zz"), 404),
    .served("double slash before a file", get("//file.txt"), 200),
    .served("double slash before a route", get("//hello"), 404),
    .served("percent-encoded file name", get("/%66ile.txt"), 200),
    .served("%2f inside a route parameter", get("/users/a%2fb"), 200),
    .served("bad percent escape in a route parameter", get("/users/%zz"), 400),
    .served("overlong UTF-8 in a route parameter", get("/users/%c0%ae"), 400),
  ]

  /// Every case.
  static let cases: [HostileCase] =
    requestLines + lineEndings + controlBytes + headerFields + contentLength + transferEncoding + smuggling
    + targets
}
