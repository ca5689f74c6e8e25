import Clocks
import HTTP
import Synchronization
import TestSupport
import Testing

@testable import App
@testable import HTTPServer

/// The steps every routed answer goes through (`Pipeline`), around handlers that fail on purpose.
@Suite("Pipeline: errors as answers, counted, with no secret in the log", .timeLimit(.minutes(6)))
struct PipelineTests {
  static let secret = "ghp_PipelineSecret0000000000000000000000"

  /// An error whose description carries what it should not (a token, a control character).
  struct Leaky: Error, CustomStringConvertible {
    var description: String { "upstream said Authorization: token \(PipelineTests.secret)\u{1B}[31m" }
  }

  /// `handler` inside the pipeline; its answer, the log lines and the metrics text.
  func run(_ handler: @escaping HTTPHandler) async throws -> (HTTPResponse, [String], String) {
    let lines = Mutex<[String]>([])
    let log = AccessLog(
      sink: { line in lines.withLock { $0.append(line) } }, secrets: [Self.secret], time: .system)
    let metrics = Metrics()
    let piped = HTTPMiddlewares.compose(
      Pipeline.middleware(metrics: metrics, accessLog: log, time: .system), handler)
    var context = RequestContext(requestID: "req-1")
    context.route = "fragment"
    let response = try await piped(HTTPRequest(method: .get, target: "/fragments/results?q=x"), context)
    var text = MetricsText()
    metrics.render(into: &text)
    return (response, lines.withLock { $0 }, text.text)
  }

  @Test func anyOtherErrorIsA500AndItsLogLineHoldsNoSecret() async throws {
    let (response, lines, metrics) = try await run { _, _ in throw Leaky() }
    expectEqual(response.status, .internalServerError)
    expectEqual(response.headers["X-Content-Type-Options"], "nosniff", "the security headers")
    let line = try #require(lines.first { $0.contains("handler error") }, "\(lines)")
    expectTrue(line.hasPrefix("req-1 "), "\(line)")
    expectTrue(!line.contains(Self.secret), "\(line)")
    expectTrue(!line.contains("\u{1B}"), "no control character reaches the log: \(line)")
    expectTrue(!lines.joined().contains(Self.secret))
    expectTrue(metrics.contains(#"route="fragment",status="500""#), "\(metrics)")
  }

  @Test func anHTTPErrorAnswersWithItselfAndIsNotLogged() async throws {
    let (response, lines, metrics) = try await run { _, _ in
      throw HTTPError(.badRequest, "q is too long")
    }
    expectEqual(response.status, .badRequest)
    expectEqual(response.headers["X-Content-Type-Options"], "nosniff")
    expectTrue(lines.isEmpty, "\(lines)")
    expectTrue(metrics.contains(#"route="fragment",status="400""#), "\(metrics)")
  }
}
