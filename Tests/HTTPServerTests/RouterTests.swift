import HTTP
import HTTPServer
import TestSupport
import Testing

/// The router in-process: patterns, decoded parameters, 400, 404 and 405.
@Suite(.timeLimit(.minutes(3))) struct RouterTests {
  static let handler: HTTPHandler = {
    var router = Router()
    router.get("/") { _, _ in .text(.ok, "root") }
    router.get("/a/{x}") { _, context in .text(.ok, "a " + (context.parameters["x"] ?? "-")) }
    router.get("/a/{x}/b") { _, context in .text(.ok, "ab " + (context.parameters["x"] ?? "-")) }
    router.post("/p") { _, _ in .text(.ok, "posted") }
    return router.handler
  }()

  static func call(_ target: String, _ method: HTTPMethod = .get) async throws -> (Int, String) {
    let response: HTTPResponse
    do {
      response = try await handler(
        HTTPRequest(method: method, target: target), RequestContext(requestID: "t"))
    } catch let error as HTTPError {
      // The server answers a thrown HTTPError with its response.
      response = error.response
    }
    guard case .bytes(let body) = response.body else { return (response.status.code, "") }
    return (response.status.code, String(decoding: body, as: UTF8.self))
  }

  @Test(arguments: [
    ("/", 200, "root\n"), ("/?q=/x", 200, "root\n"), ("/a/x%20y", 200, "a x y\n"),
    ("/a/z/b?c=/d", 200, "ab z\n"),
    ("/a/%zz", 400, "bad percent-encoding in path\n"), ("/a/%zz/b/c", 404, "not found\n"),
    ("/a/", 404, "not found\n"), ("/a", 404, "not found\n"), ("//", 404, "not found\n"),
    ("/a/x/c", 404, "not found\n"), ("", 404, "not found\n"),
  ])
  func pathsMatchWholePatterns(target: String, status: Int, body: String) async throws {
    let (code, text) = try await Self.call(target)
    expectTrue(code == status && text == body)
  }

  @Test func aKnownPathWithAnotherMethodIs405WithAllow() async throws {
    let response = try await Self.handler(
      HTTPRequest(method: .get, target: "/p"), RequestContext(requestID: "t"))
    expectTrue(response.status == .methodNotAllowed && response.headers["Allow"] == "POST")
    try await expectEqual(Self.call("/", .head).0, 200)
  }
}
