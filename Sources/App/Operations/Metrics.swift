import Synchronization

/// Request counters for `/metrics`, shared by every connection. A mutex keeps each update to a few
/// dictionary operations, which is cheaper than an actor hop on the hot path.
final class Metrics: Sendable {
  struct Key: Hashable {
    let route: String
    let status: Int
  }

  /// Upper bounds of the duration buckets, in seconds: static files and cached fragments land in
  /// the first few, upstream-bound pages (80–900 ms at GitHub) in the middle, stalls at the top.
  static let bucketBounds: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

  /// One route's duration histogram: counts per bucket (not cumulative; summed when rendered).
  struct Histogram {
    var buckets = [Int](repeating: 0, count: Metrics.bucketBounds.count)
    var count = 0
    var sum = 0.0

    mutating func observe(_ seconds: Double) {
      count += 1
      sum += seconds
      if let index = Metrics.bucketBounds.firstIndex(where: { seconds <= $0 }) { buckets[index] += 1 }
    }
  }

  struct State {
    var requests: [Key: Int] = [:]
    var durations: [String: Histogram] = [:]
    var inFlight = 0
  }

  private let state = Mutex(State())

  /// Empty counters.
  init() {}

  /// Marks a request as started; pair with `finished`.
  func started() {
    state.withLock { $0.inFlight += 1 }
  }

  /// Counts a finished request by route name and status.
  func finished(route: String, status: Int, seconds: Double) {
    state.withLock {
      $0.inFlight -= 1
      $0.requests[Key(route: route, status: status), default: 0] += 1
      $0.durations[route, default: Histogram()].observe(seconds)
    }
  }

  /// Requests currently being handled.
  var inFlight: Int { state.withLock { $0.inFlight } }

  /// The count for one route and status, for tests.
  func count(route: String, status: Int) -> Int {
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
    let name = "reposcroll_http_request_duration_seconds"
    out.family(name, .histogram, "Time from the request to its last byte queued, by route.")
    for (route, histogram) in snapshot.durations.sorted(by: { $0.key < $1.key }) {
      out.histogram(
        name, labels: "route=\"\(route)\"", bounds: Self.bucketBounds, buckets: histogram.buckets,
        count: histogram.count, sum: histogram.sum)
    }
    out.single("reposcroll_http_requests_in_flight", .gauge, "Requests being handled now.", snapshot.inFlight)
  }
}
