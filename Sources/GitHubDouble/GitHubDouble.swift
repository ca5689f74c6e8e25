import HTTP
import HTTPServer
import Synchronization

/// A GitHub-compatible server for tests, benchmarks and the offline demo: a deterministic catalog with
/// GitHub's search semantics, pagination, headers and rate limits, plus injectable latency and faults.
public final class GitHubDouble: Sendable {
  /// The configuration the double was built with (faults and limits may change at run time).
  public let configuration: DoubleConfiguration
  /// The synthetic catalog.
  public let catalog: Catalog
  let engine: SearchEngine
  let state: Mutex<DoubleState>
  let clock: @Sendable () -> Double
  let avatarCache = Mutex<[Int: [UInt8]]>([:])
  /// Recent result lists (the catalog never changes), so paging through one query searches once.
  let searchCache = Mutex<[(key: String, hits: [SearchHit])]>([])
  let serverBox = Mutex<HTTPServer?>(nil)

  /// Builds the catalog (deterministic from the seed) and the initial state.
  /// - Parameter now: the wall clock in Unix seconds; tests inject their own.
  public init(configuration: DoubleConfiguration, now: @escaping @Sendable () -> Double = WallClock.now) {
    self.configuration = configuration
    catalog = Catalog(configuration: configuration)
    engine = SearchEngine(catalog: catalog)
    clock = now
    state = Mutex(DoubleState(configuration: configuration, now: Int(now())))
  }

  /// The handler for everything: GitHub endpoints, avatars and the `/_double/` control API.
  /// Built on each access so the double does not hold its own handler (no reference cycle).
  public var handler: HTTPHandler { makeRouter().handler }

  /// A snapshot of the call counters.
  public func counters() -> DoubleCounters { state.withLock { $0.counters } }

  /// Resets counters, the request log, rate-limit windows and faults to the configuration's values.
  public func reset() {
    let now = Int(clock())
    state.withLock { s in
      let inFlight = s.counters.inFlight
      s = DoubleState(configuration: configuration, now: now)
      s.counters.inFlight = inFlight
    }
  }

  /// Replaces the fault settings.
  public func setFaults(_ faults: FaultSettings) { state.withLock { $0.faults = faults } }

  /// The current fault settings.
  public func faults() -> FaultSettings { state.withLock { $0.faults } }

  /// Overrides a rate-limit window (any nil part is left as it is).
  public func setRateLimit(
    resource: DoubleResource, limit: Int? = nil, remaining: Int? = nil, reset: Int? = nil
  ) {
    let now = Int(clock())
    state.withLock { s in
      var w = s.windows[resource] ?? RateWindow(limit: 60, window: 3600, now: now)
      w.roll(now: now)
      if let limit { w.limit = max(0, limit) }
      if let remaining {
        w.remaining = max(0, remaining)
        w.used = max(0, w.limit - w.remaining)
      }
      if let reset { w.reset = reset }
      s.windows[resource] = w
    }
  }

  /// The current window of a resource, rolled forward to now.
  public func rateWindow(_ resource: DoubleResource) -> RateWindow? {
    let now = Int(clock())
    return state.withLock { s in
      s.windows[resource]?.roll(now: now)
      return s.windows[resource]
    }
  }

  /// Ordered hits for a query, from the small recent-results cache when possible.
  func hits(q: String, sort: DoubleSearchSort?, ascending: Bool) -> [SearchHit] {
    let key = "\(sort?.rawValue ?? "best")|\(ascending)|\(q)"
    if let cached = searchCache.withLock({ cache in cache.first { $0.key == key }?.hits }) { return cached }
    let hits = engine.search(SearchQuery(q), sort: sort, ascending: ascending)
    searchCache.withLock { cache in
      if cache.count >= 8 { cache.removeFirst() }
      cache.append((key: key, hits: hits))
    }
    return hits
  }

  // MARK: Dispatch

  /// Counts the call, then serves it.
  func serve(_ route: Route, _ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    let arrived = milliseconds()
    state.withLock { $0.counters.inFlight += 1 }
    defer { state.withLock { $0.counters.inFlight -= 1 } }
    do {
      let response = wire(try await serveUncounted(route, request, context), route, request, context)
      let record = DoubleRequestRecord(
        endpoint: route.endpoint, arrivedMs: arrived, finishedMs: milliseconds(), status: response.status.code
      )
      state.withLock {
        $0.counters.record(route.endpoint, status: response.status.code)
        $0.requests.append(record)
      }
      return response
    } catch {
      let record = DoubleRequestRecord(
        endpoint: route.endpoint, arrivedMs: arrived, finishedMs: milliseconds(), status: 0)
      state.withLock {
        $0.counters.cancelled += 1
        $0.requests.append(record)
      }
      throw error
    }
  }

  private func milliseconds() -> Int { Int(clock() * 1000) }

  /// The most recent requests (at most `2 × 8192`), oldest first.
  public func requestLog() -> [DoubleRequestRecord] { state.withLock { $0.requests.records } }

  /// Latency, faults, rate limit, then the endpoint itself.
  private func serveUncounted(_ route: Route, _ request: HTTPRequest, _ context: RequestContext) async throws
    -> HTTPResponse
  {
    guard request.method == .get || request.method == .head else {
      return GitHubResponses.error(
        HTTPStatus(code: 404), message: "Not Found", documentation: "https://docs.github.com/rest")
    }
    let endpoint = route.endpoint
    let (delay, fault, hangLimit, mode) = state.withLock { s in
      (s.latency(for: endpoint), s.drawFault(), s.faults.hangLimit, s.faults.mode)
    }
    if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
    switch fault {
    case .hang:
      try await hang(limit: hangLimit)
      return GitHubResponses.error(HTTPStatus(code: 504), message: "Gateway Timeout", documentation: nil)
    case .secondaryLimit:
      return secondaryLimitResponse(route, context)
    case .serverError(let code):
      return GitHubResponses.serverError(code)
    case .none, .truncate:
      break
    }
    var response = try respond(route, request, context)
    if let mode, Self.applies(mode, to: route) {
      return try await misbehave(mode, route, request, response, hangLimit: hangLimit)
    }
    if fault == .truncate, case .bytes(let b) = response.body, !b.isEmpty,
      response.headers["Content-Type"]?.hasPrefix("application/json") == true
    {
      response.body = .bytes(Array(b.prefix(max(1, b.count / 2))))
    }
    return response
  }

  /// Sleeps until the client goes away (task cancellation) or the hang limit passes.
  func hang(limit: Duration) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while clock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  private func respond(_ route: Route, _ request: HTTPRequest, _ context: RequestContext) throws
    -> HTTPResponse
  {
    let base = configuration.publicBaseURL ?? "http://" + (request.headers["Host"] ?? "127.0.0.1")
    switch route {
    case .search: return search(request, context, base: base)
    case .history(let o, let r): return history(owner: o, repo: r, request, context, base: base)
    case .count(let o, let r): return count(owner: o, repo: r, request, context)
    case .repository(let o, let r): return repository(owner: o, repo: r, request, context, base: base)
    case .userRepos(let login): return userRepos(login: login, request, context, base: base)
    case .avatar(let id): return avatar(id: id, request)
    case .rateLimit: return rateLimitStatus()
    case .notFound:
      return GitHubResponses.error(
        HTTPStatus(code: 404), message: "Not Found", documentation: "https://docs.github.com/rest")
    }
  }

  // MARK: Rate limits

  /// Takes one request from a resource's window: nil and the headers when allowed,
  /// or the primary-limit error response when exhausted.
  func take(_ resource: DoubleResource, _ context: RequestContext, _ request: HTTPRequest) -> (
    HTTPHeaders, HTTPResponse?
  ) {
    let now = Int(clock())
    let (allowed, window) = state.withLock { s -> (Bool, RateWindow) in
      var w = s.windows[resource] ?? RateWindow(limit: 60, window: 3600, now: now)
      let ok = w.take(now: now)
      s.windows[resource] = w
      return (ok, w)
    }
    let headers = GitHubResponses.rateHeaders(window, resource)
    if allowed { return (headers, nil) }
    let authenticated = request.headers["Authorization"] != nil
    return (
      headers,
      GitHubResponses.primaryLimit(
        status: configuration.rateLimitStatus, headers: headers, authenticated: authenticated,
        address: context.remoteAddress)
    )
  }

  /// Rate headers without spending (for 304s, which GitHub does not count).
  func peek(_ resource: DoubleResource) -> HTTPHeaders {
    let now = Int(clock())
    let w = state.withLock { s -> RateWindow in
      var w = s.windows[resource] ?? RateWindow(limit: 60, window: 3600, now: now)
      w.roll(now: now)
      s.windows[resource] = w
      return w
    }
    return GitHubResponses.rateHeaders(w, resource)
  }

  private func secondaryLimitResponse(_ route: Route, _ context: RequestContext) -> HTTPResponse {
    var headers = route.resource.map { peek($0) } ?? HTTPHeaders()
    let retry = state.withLock { $0.faults.secondaryRetryAfter }
    headers.replaceOrAdd(name: "Retry-After", value: String(retry))
    return GitHubResponses.secondaryLimit(headers: headers, requestID: context.requestID)
  }
}
