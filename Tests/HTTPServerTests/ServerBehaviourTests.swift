import Foundation
import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Collects access-log entries from the server threads.
final class LogCollector: Sendable {
  let entries = Mutex<[AccessLogEntry]>([])
  var sink: @Sendable (AccessLogEntry) -> Void { { entry in self.entries.withLock { $0.append(entry) } } }
  var all: [AccessLogEntry] { entries.withLock { $0 } }
}

/// The hello routes, plus streamed, failing and large answers.
func streamingRouter() -> HTTPHandler {
  var router = Router()
  addHelloRoutes(to: &router)
  router.get("/stream") { _, _ in
    let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    Task {
      for part in ["one,", "", "two,", "three"] {
        continuation.yield(Array(part.utf8))
        try? await Task.sleep(for: .milliseconds(5))  // Real time: parts that leave as separate chunks.
      }
      continuation.finish()
    }
    return HTTPResponse(headers: ["Content-Type": "text/plain"], body: .stream(stream))
  }
  router.get("/broken-stream") { _, _ in
    let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    continuation.yield(Array("partial".utf8))
    continuation.finish(throwing: HTTPError(.badGateway, "upstream died"))
    return HTTPResponse(body: .stream(stream))
  }
  router.get("/teapot") { _, _ in
    throw HTTPError(HTTPStatus(code: 418, reasonPhrase: "I'm a teapot"), "short and stout")
  }
  router.get("/crash") { _, _ in throw CancellationError() }
  router.get("/big") { _, _ in HTTPResponse(body: .bytes(Array(repeating: 120, count: 300_000))) }
  return router.handler
}

@Suite(.timeLimit(.minutes(3))) struct ServerBehaviourTests {
  @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
    try await withServer(handler: streamingRouter()) { port in
      let client = try RawSocketClient(port: port)
      try client.send(
        "GET /hello HTTP/1.1\r\nHost: a\r\n\r\nGET /stream HTTP/1.1\r\nHost: a\r\n\r\n"
          + "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /nothing HTTP/1.1\r\nHost: a\r\n\r\n"
      )
      try expectEqual(client.readResponse().text, "hello\n")
      try expectEqual(client.readResponse().text, "one,two,three")
      try expectEqual(client.readResponse().text, "abc")
      try expectEqual(client.readResponse().status, 404)
    }
  }

  @Test func headHasHeadersButNoBody() async throws {
    try await withServer(handler: streamingRouter()) { port in
      let client = try RawSocketClient(port: port)
      let head = try client.request("HEAD", "/hello")
      expectEqual(head.status, 200)
      expectEqual(head.headers["Content-Length"], "6")
      expectTrue(head.body.isEmpty)
      // The next response must start right away: no stray body bytes were sent.
      try expectEqual(client.request("GET", "/hello").text, "hello\n")
    }
  }

  @Test func connectionCloseAndHTTP10() async throws {
    try await withServer(handler: streamingRouter()) { port in
      let closing = try RawSocketClient(port: port)
      let response = try closing.request("GET", "/hello", headers: [("Connection", "close")])
      expectEqual(response.headers["Connection"], "close")
      expectTrue(closing.closesConnection())

      let old = try RawSocketClient(port: port)
      try old.send("GET /hello HTTP/1.0\r\n\r\n")
      try expectEqual(old.readResponse().headers["Connection"], "close")
      expectTrue(old.closesConnection())

      let oldKeep = try RawSocketClient(port: port)
      for _ in 0..<2 {
        try oldKeep.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let r = try oldKeep.readResponse()
        expectEqual(r.headers["Connection"], "keep-alive")
        expectEqual(r.text, "hello\n")
      }

      let oldStream = try RawSocketClient(port: port)
      try oldStream.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
      let streamed = try oldStream.readResponse()
      expectEqual(streamed.headers["Transfer-Encoding"], nil)
      expectEqual(streamed.text, "one,two,three")
    }
  }

  @Test func streamedBodiesAreChunked() async throws {
    try await withServer(handler: streamingRouter()) { port in
      let client = try RawSocketClient(port: port)
      let response = try client.request("GET", "/stream")
      expectEqual(response.headers["Transfer-Encoding"], "chunked")
      expectEqual(response.headers["Content-Length"], nil)
      expectEqual(response.text, "one,two,three")
      let broken = try RawSocketClient(port: port)
      try broken.send("GET /broken-stream HTTP/1.1\r\nHost: a\r\n\r\n")
      #expect(throws: RawClientError.self) { try broken.readResponse() }
    }
  }

  @Test func handlerErrorsBecomeResponses() async throws {
    try await withServer(handler: streamingRouter()) { port in
      let client = try RawSocketClient(port: port)
      let teapot = try client.request("GET", "/teapot")
      expectEqual(teapot.status, 418)
      expectEqual(teapot.text, "short and stout\n")
      try expectEqual(client.request("GET", "/crash").status, 500)
      let big = try client.request("GET", "/big")
      expectEqual(big.body.count, 300_000)
    }
  }

  @Test func bodiesAndExpectContinue() async throws {
    try await withServer({ $0.limits.maxBodyBytes = 10 }, handler: streamingRouter()) { port in
      let client = try RawSocketClient(port: port)
      try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
      let interim = try client.readRawHead()
      expectTrue(interim.hasPrefix("HTTP/1.1 100 Continue"))
      try client.send("data")
      try expectEqual(client.readResponse().text, "data")
      let tooBig = try client.request("POST", "/echo", body: "0123456789A")
      expectEqual(tooBig.status, 413)
      expectTrue(client.closesConnection())
    }
  }

  static let malformed: [(String, Int)] = [
    ("GARBAGE\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\r\n folded: x\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc", 400),
    ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -2\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\r\nX: \u{7f}\r\n\r\n", 400),
    ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505),
    ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\r\n\r\n", 400),
    ("GET /\u{0}x HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 411),
  ]

  @Test(arguments: malformed)
  func malformedRequestsGetAnErrorAndAClose(_ input: String, _ status: Int) async throws {
    let log = LogCollector()
    try await withServer(handler: streamingRouter(), log: log.sink) { port in
      let client = try RawSocketClient(port: port)
      try client.send(input)
      let response = try client.readResponse()
      expectEqual(response.status, status)
      expectEqual(response.headers["Connection"], "close")
      expectEqual(response.headers["Content-Type"], "text/plain; charset=utf-8")
      expectTrue(client.closesConnection())
    }
    expectEqual(log.all.map(\.status), [status])
  }

  @Test func accessLogHasOneLinePerRequest() async throws {
    let log = LogCollector()
    try await withServer(handler: streamingRouter(), log: log.sink) { port in
      let client = try RawSocketClient(port: port)
      _ = try client.request("GET", "/hello?x=1")
      _ = try client.request("GET", "/stream")
      _ = try client.request("HEAD", "/hello")
    }
    let entries = log.all
    expectEqual(entries.map(\.path), ["/hello", "/stream", "/hello"])
    expectEqual(entries.map(\.method), ["GET", "GET", "HEAD"])
    expectEqual(entries.map(\.bytes), [6, 13, 0])
    expectEqual(Set(entries.map(\.requestID)).count, 3)
    expectTrue(entries[0].line.contains("GET /hello?x=1 200 6B "))
  }

  @Test func manyConcurrentConnections() async throws {
    try await withServer(handler: streamingRouter()) { port in
      var clients: [RawSocketClient] = []
      for _ in 0..<200 { clients.append(try RawSocketClient(port: port)) }
      for client in clients { try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n") }
      for client in clients { try expectEqual(client.readResponse().status, 200) }
      for client in clients { try expectEqual(client.request("GET", "/hello").text, "hello\n") }
    }
  }

  @Test func curlCommandLineInterop() async throws {
    try TestTier.startingProcess("curl")  // here, on the test's task: runCurl runs on the server's thread
    try await withServer(handler: streamingRouter()) { port in
      let base = "http://127.0.0.1:\(port)"
      let output = try runCurl(["-s", "-i", "\(base)/hello", "\(base)/stream", "-d", "x=1"])
      expectTrue(output.contains("HTTP/1.1 405"))  // curl -d turns every URL into a POST
      let get = try runCurl(["-s", "--http1.1", "\(base)/hello", "\(base)/stream"])
      expectEqual(get, "hello\none,two,three")
      let post = try runCurl(["-s", "-H", "Expect: 100-continue", "--data-binary", "payload", "\(base)/echo"])
      expectEqual(post, "payload")
      let head = try runCurl(["-s", "-I", "\(base)/hello"])
      expectTrue(head.contains("Content-Length: 6"))
    }
  }
}

func runCurl(_ arguments: [String]) throws -> String {
  try TestTier.startingProcess("curl")
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
  process.arguments = ["--max-time", "10"] + arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}
