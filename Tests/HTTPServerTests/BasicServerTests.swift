import Clocks
import Glibc
import HTTP
import HTTPServer
import TestSupport
import Testing

/// Starts a server for one test and shuts it down afterwards.
func withServer(
  _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
  handler: @escaping HTTPHandler,
  log: (@Sendable (AccessLogEntry) -> Void)? = nil,
  _ body: @escaping @Sendable (Int) throws -> Void
) async throws {
  var configuration = HTTPServerConfiguration(time: .system)
  configure(&configuration)
  try await withLiveServer(configuration, handler: handler, log: log) { live in
    try await onThread { try body(live.port) }
  }
}

/// Routes `GET /hello`, `GET /users/{name}/repos/{repo}` (answering "name|repo") and `POST /echo`.
func addHelloRoutes(to router: inout Router) {
  router.get("/hello") { _, _ in .text(.ok, "hello") }
  router.get("/users/{name}/repos/{repo}") { _, context in
    .text(.ok, "\(context.parameters["name"] ?? "")|\(context.parameters["repo"] ?? "")")
  }
  router.post("/echo") { request, _ in HTTPResponse(body: .bytes(request.body)) }
}

/// The hello routes alone.
func helloRouter() -> HTTPHandler {
  var router = Router()
  addHelloRoutes(to: &router)
  return router.handler
}

@Suite(.timeLimit(.minutes(3))) struct BasicServerTests {
  @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
    try await withServer(handler: helloRouter()) { port in
      let client = try RawSocketClient(port: port)
      for _ in 0..<3 {
        let response = try client.request("GET", "/hello")
        expectEqual(response.status, 200)
        expectEqual(response.text, "hello\n")
        expectEqual(response.headers["Content-Length"], "6")
        expectTrue(response.headers["Date"] != nil)
        expectEqual(response.headers["Server"], "RepoScroll")
      }
    }
  }

  @Test func routerParametersAndMethods() async throws {
    try await withServer(handler: helloRouter()) { port in
      let client = try RawSocketClient(port: port)
      try expectEqual(client.request("GET", "/users/a%20b/repos/x").text, "a b|x\n")
      let post = try client.request("POST", "/hello", body: "x")
      expectEqual(post.status, 405)
      expectEqual(post.headers["Allow"], "GET, HEAD")
      let echo = try client.request("POST", "/echo", body: "ping")
      expectEqual(echo.text, "ping")
      try expectEqual(client.request("GET", "/nope").status, 404)
    }
  }
}

@Suite(.timeLimit(.minutes(3))) struct SignalHandlingTests {
  /// Whether SIGPIPE has its default action (ends the process), read without changing it.
  static func sigpipeIsDefault() -> Bool {
    var current = sigaction()
    guard sigaction(SIGPIPE, nil, &current) == 0 else { return false }
    return current.__sigaction_handler.sa_handler == nil  // SIG_DFL is the null handler
  }

  @Test func startingAServerLeavesSIGPIPEAlone() async throws {
    // Nothing in this process should need SIGPIPE ignored (every send passes MSG_NOSIGNAL), so the
    // default action is set for the test and the previous one put back after it.
    let previous = signal(SIGPIPE, SIG_DFL)
    defer { signal(SIGPIPE, previous) }
    expectTrue(Self.sigpipeIsDefault())
    let stillDefault = try await withLiveServer(handler: helloRouter()) { _ in Self.sigpipeIsDefault() }
    expectTrue(stillDefault)
  }
}
