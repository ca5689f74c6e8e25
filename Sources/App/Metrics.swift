import Synchronization

/// Request counters for `/metrics`, shared by every connection. A mutex keeps each update to a few
/// dictionary operations, which is cheaper than an actor hop on the hot path.
public final class Metrics: Sendable {
  struct Key: Hashable {
    let route: String
    let status: Int
  }

  struct State {
    var requests: [Key: Int] = [:]
    var durationSeconds: [String: Double] = [:]
    var inFlight = 0
  }

  private let state = Mutex(State())

  /// Empty counters.
  public init() {}

  /// Marks a request as started; pair with `finished`.
  public func started() {
    state.withLock { $0.inFlight += 1 }
  }

  /// Counts a finished request by route name and status.
  public func finished(route: String, status: Int, seconds: Double) {
    state.withLock {
      $0.inFlight -= 1
      $0.requests[Key(route: route, status: status), default: 0] += 1
      $0.durationSeconds[route, default: 0] += seconds
    }
  }

  /// Requests currently being handled.
  public var inFlight: Int { state.withLock { $0.inFlight } }

  /// The count for one route and status, for tests.
  public func count(route: String, status: Int) -> Int {
    state.withLock { $0.requests[Key(route: route, status: status)] ?? 0 }
  }

  /// Appends this process's request metrics in Prometheus text format.
  func render(into out: inout MetricsText) {
    let snapshot = state.withLock { $0 }
    out.family("reposcroll_http_requests_total", .counter, "Requests answered, by route and status.")
    for (key, value) in snapshot.requests.sorted(by: {
      ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status)
    }) {
      out.sample(
        "reposcroll_http_requests_total", labels: "route=\"\(key.route)\",status=\"\(key.status)\"", value)
    }
    out.family("reposcroll_http_request_seconds_total", .counter, "Time spent answering, by route.")
    for (route, value) in snapshot.durationSeconds.sorted(by: { $0.key < $1.key }) {
      out.sample("reposcroll_http_request_seconds_total", labels: "route=\"\(route)\"", value)
    }
    out.single("reposcroll_http_requests_in_flight", .gauge, "Requests being handled now.", snapshot.inFlight)
  }
}
