import CurlClient
import HTTP
import TestSupport
import Testing

@testable import App

/// Route names come from the router's registrations: each request is counted under the name its
/// route was registered with, and a path no route matches under `other`.
@Suite(.timeLimit(.minutes(6))) struct RouteNameTests {
  @Test func everyAnswerIsCountedUnderItsRegisteredName() async throws {
    let cases: [(target: String, label: String)] = [
      ("/", "page"), ("/fragments/results?q=swift", "fragment"), ("/fragments/results/x", "other"),
      ("/fragments/stars/a/b", "stars"), ("/fragments/stars?r=a/b", "stars_batch"),
      ("/fragments/starsx", "other"), ("/fragments/owners/a", "owner_fragment"), ("/owners/a", "owner"),
      ("/avatars/1", "avatar"), ("/static/app.css", "static"), ("/static/nothing-here", "static"),
      ("/healthz", "healthz"), ("/metrics", "metrics"), ("/metrics/x", "other"),
      ("/fragments/result", "other"), ("//", "other"), ("/login", "other"),
    ]
    try await AppHarness.with { h in
      for (target, label) in cases {
        let before = Self.counted(h.app.metrics, label)
        _ = try await h.get(target)
        expectEqual(Self.counted(h.app.metrics, label), before + 1, "\(target) counts as \(label)")
      }
      // A method the path does not allow is counted under the route the path matched.
      let refused = try await h.request(.delete, "/healthz")
      expectTrue(refused.status == .methodNotAllowed && refused.headers["Allow"] == "GET, HEAD")
      expectEqual(h.app.metrics.count(route: "healthz", status: 405), 1)
    }
  }

  @Test func theSignInRoutesAreRegisteredOnlyWithSignIn() async throws {
    try await AppHarness.with { h in
      _ = try await h.get("/login")
      expectEqual(h.app.metrics.count(route: "other", status: 404), 1)
      expectEqual(h.app.metrics.count(route: "login", status: 404), 0)
    }
  }

  static func counted(_ metrics: Metrics, _ label: String) -> Int {
    [200, 204, 303, 304, 400, 404, 405, 422, 500].reduce(0) { $0 + metrics.count(route: label, status: $1) }
  }
}
