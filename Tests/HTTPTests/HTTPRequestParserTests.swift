import TestSupport
import Testing

@testable import HTTP

extension HTTPParseResult {
  /// The status this outcome leads to: the failure's, 200 for a request, 0 while more is needed.
  var statusCode: Int {
    switch self {
    case .needMore: 0
    case .request: 200
    case .failure(let error): error.status.code
    }
  }
}

/// Parses `text` in one go and returns the status of the failure, or 0 for `.needMore`, or 200 for a request.
func outcome(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> Int {
  var parser = HTTPRequestParser(limits: limits)
  return parser.parse(Array(text.utf8)).statusCode
}

private func parseOne(_ text: String) -> (HTTPRequest, Int)? {
  var parser = HTTPRequestParser()
  if case .request(let request, let consumed) = parser.parse(Array(text.utf8)) { return (request, consumed) }
  return nil
}

@Suite(.timeLimit(.minutes(2))) struct HTTPRequestParserTests {
  static let cases: [(String, Int)] = [
    ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", 200),
    ("GET / HTTP/1.0\r\n\r\n", 200),
    ("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", 200),
    ("GET /x?y=1 HTTP/1.1\r\nHost: a\r\nAccept:  text/html \r\n\r\n", 200),
    ("GET / HTTP/1.1\r\n\r\n", 400),  // no Host
    ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    ("GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505),
    ("GET / HTTX/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400),
    ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("G@T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET /\u{01} HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET /é HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET foo HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", 200),
    ("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\n: a\r\nHost: a\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", 400),
    ("GET / HTTP/1.1\nHost: a\n\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\nx", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
    ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\nx", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 1\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\nx", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 200),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 16385\r\n\r\n", 413),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nab", 0),
    ("GET / HTTP/1.1\r\nHost: a\r\n", 0),
    ("GET / HTTP/1.1", 0),
    ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414),
    ("GET /" + String(repeating: "a", count: 9000), 414),
    ("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 17000) + "\r\n\r\n", 431),
    ("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 17000), 431),
    ("GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X: y\r\n", count: 100) + "\r\n", 431),
    ("GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X: y\r\n", count: 99) + "\r\n", 200),
  ]

  @Test(arguments: cases)
  func statusForInput(_ input: String, _ expected: Int) {
    expectEqual(outcome(input), expected, "\(input.prefix(80).debugDescription)")
  }

  @Test func fieldsAreParsedAndTrimmed() throws {
    let (request, consumed) = try #require(
      parseOne("GET /p?q=1 HTTP/1.1\r\nHost: ex\r\nX-Y:\t  v a l \t\r\n\r\nrest"))
    expectEqual(request.method, .get)
    expectEqual(request.target, "/p?q=1")
    expectEqual(request.version, .http11)
    expectEqual(request.headers["x-y"], "v a l")
    expectEqual(consumed, "GET /p?q=1 HTTP/1.1\r\nHost: ex\r\nX-Y:\t  v a l \t\r\n\r\n".utf8.count)
  }

  @Test func absoluteFormKeepsOnlyThePath() throws {
    try expectEqual(
      #require(parseOne("GET http://h.example/a/b?c HTTP/1.1\r\nHost: h\r\n\r\n")).0.target, "/a/b?c")
    try expectEqual(#require(parseOne("GET https://h.example HTTP/1.1\r\nHost: h\r\n\r\n")).0.target, "/")
  }

  @Test func bytewiseFeedingGivesTheSameRequest() {
    let text = Array("POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello".utf8)
    var parser = HTTPRequestParser()
    for end in 1..<text.count {
      guard case .needMore = parser.parse(Array(text[0..<end])) else {
        Issue.record("complete too early at \(end)")
        return
      }
    }
    guard case .request(let request, let consumed) = parser.parse(text) else {
      Issue.record("not complete")
      return
    }
    expectEqual(request.body, Array("hello".utf8))
    expectEqual(consumed, text.count)
  }

  @Test func pipelinedRequestsAreSeparated() {
    let text = Array("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
    var parser = HTTPRequestParser()
    guard case .request(let first, let consumed) = parser.parse(text) else {
      Issue.record("first")
      return
    }
    expectEqual(first.target, "/1")
    guard case .request(let second, _) = parser.parse(Array(text[consumed...])) else {
      Issue.record("second")
      return
    }
    expectEqual(second.target, "/2")
  }

  @Test func expectContinueIsReported() {
    var parser = HTTPRequestParser()
    let head = "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
    guard case .needMore = parser.parse(Array(head.utf8)) else {
      Issue.record("should wait for the body")
      return
    }
    expectTrue(parser.expectsContinue)
    parser.continueSent()
    expectTrue(!parser.expectsContinue)
    guard case .request(let request, _) = parser.parse(Array((head + "ok").utf8)) else {
      Issue.record("body")
      return
    }
    expectEqual(request.body, Array("ok".utf8))
  }

  @Test func smallerLimitsApply() {
    let limits = HTTPParserLimits(
      maxRequestLineBytes: 20, maxHeaderBytes: 40, maxHeaderCount: 2, maxBodyBytes: 3)
    expectEqual(outcome("GET /0123456789012345 HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits), 414)
    expectEqual(outcome("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits), 431)
    expectEqual(
      outcome("GET / HTTP/1.1\r\nHost: a\r\nA: \(String(repeating: "x", count: 40))\r\n\r\n", limits: limits),
      431)
    expectEqual(outcome("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nabcd", limits: limits), 413)
  }

  static let keepAliveCases: [(String, Bool)] = [
    ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
    ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
    ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Keep-Alive, CLOSE\r\n\r\n", false),
    ("GET / HTTP/1.0\r\n\r\n", false),
    ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
  ]

  @Test(arguments: keepAliveCases)
  func keepAliveRules(_ input: String, _ expected: Bool) throws {
    try expectEqual(#require(parseOne(input)).0.keepAlive, expected)
  }
}
