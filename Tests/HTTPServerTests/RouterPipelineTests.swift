import HTTP
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Route names and the middleware pipeline: every answer (routes, 405, 404, a bad escape) goes
/// through the steps in order, under the name its route was registered with.
@Suite(.timeLimit(.minutes(1))) struct RouterPipelineTests {
  /// The steps' notes, in the order they ran.
  final class Seen: Sendable {
    let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func router(seen: Seen) -> HTTPHandler {
    var router = Router()
    router.use { request, context, next in
      var response = try await next(request, context)
      response.headers.add(name: "X-Route", value: context.route)
      seen.append("outer " + context.route)
      return response
    }
    router.use { request, context, next in
      seen.append("inner " + context.route)
      do {
        return try await next(request, context)
      } catch let error as HTTPError {
        return error.response
      }
    }
    router.get("/", name: "root") { _, _ in .text(.ok, "root") }
    router.get("/a/{x}", name: "a") { _, context in .text(.ok, "a " + (context.parameters["x"] ?? "-")) }
    router.post("/p") { _, _ in .text(.ok, "posted") }
    router.fallback(name: "nothing") { _, _ in .text(.notFound, "none") }
    return router.handler
  }

  @Test(arguments: [
    ("/", HTTPMethod.get, 200, "root"), ("/a/x", .get, 200, "a"), ("/a/%zz", .get, 400, "a"),
    ("/a/x", .post, 405, "a"), ("/p", .post, 200, "/p"), ("/p", .get, 405, "/p"),
    ("/nope", .get, 404, "nothing"),
  ])
  func everyAnswerGoesThroughThePipelineUnderItsRouteName(
    target: String, method: HTTPMethod, status: Int, name: String
  ) async throws {
    let seen = Seen()
    let handler = Self.router(seen: seen)
    let response = try await handler(
      HTTPRequest(method: method, target: target), RequestContext(requestID: "t"))
    expectEqual(response.status.code, status)
    expectEqual(response.headers["X-Route"], name)
    expectEqual(seen.all, ["inner " + name, "outer " + name], "the first step added is outermost")
  }
}
