import Clocks
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
  /// Where "now" comes from: rate-limit windows, token expiries, latency.
  let time: TimeSource
  let avatarCache = Mutex<[Int: [UInt8]]>([:])
  /// Recent result lists (the catalog never changes), so paging through one query searches once; kept
  /// without their range qualifiers, so the windows of one query (`stars:<=S`, `created:` slices) are
  /// filtered from one sorted list instead of each sorting the catalog again.
  let searchCache = Mutex<[(key: String, query: SearchQuery, hits: [SearchHit])]>([])
  let serverBox = Mutex<HTTPServer?>(nil)
  /// OAuth codes, tokens and grants (kept across `reset()`, like GitHub's accounts).
  let oauth = Mutex(OAuthState())

  /// Builds the catalog (deterministic from the seed) and the initial state.
  /// - Parameter time: the clock; the executables pass `.system`, tests their own.
  public init(configuration: DoubleConfiguration, time: TimeSource) {
    self.configuration = configuration
    catalog = Catalog(configuration: configuration)
    engine = SearchEngine(catalog: catalog)
    self.time = time
    state = Mutex(DoubleState(configuration: configuration, now: time.epochSeconds()))
  }

  /// The handler for everything: GitHub endpoints, avatars and the `/_double/` control API.
  /// Built on each access so the double does not hold its own handler (no reference cycle).
  public var handler: HTTPHandler { makeRouter().handler }

  /// Every repository matching `q`, in the order of `sort` (nil: best match), as anonymous searches
  /// see them now (moved star counts included) and without the 1,000-result cap: the double's own
  /// enumeration, for tests that check a client read all of it.
  public func enumerate(q: String, sort: DoubleSearchSort?, ascending: Bool) -> [Int] {
    let moved = state.withLock { $0.drift.moved }
    return hits(q: q, sort: sort, ascending: ascending, moved: moved).map(\.id)
  }

  /// Ids of the repositories whose star count the `starDrift` fault has moved since the last reset.
  public func driftedRepositoryIDs() -> Set<Int> { state.withLock { $0.drift.touched } }

  /// The star count of the repository at catalog `index` now (moved by `starDrift` or not).
  func stars(at index: Int, moved: [Int: Int]) -> Int { moved[index] ?? catalog.columns.stars[index] }

  /// Applies one search call's star drift (when the fault is on) and returns the moved counts.
  func driftStars() -> [Int: Int] {
    state.withLock { s in
      if s.faults.starDrift > 0 { s.drift.step(count: s.faults.starDrift, catalog: catalog, rng: &s.rng) }
      return s.drift.moved
    }
  }

  /// A snapshot of the call counters.
  public func counters() -> DoubleCounters { state.withLock { $0.counters } }

  /// Resets counters, the request log, rate-limit windows and faults to the configuration's values.
  public func reset() {
    let now = time.epochSeconds()
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

  /// Overrides a rate-limit window (any nil part is left as it is): the shared one, or with `login`
  /// that signed-in user's own (as if their other tools had spent some of it).
  public func setRateLimit(
    resource: DoubleResource, limit: Int? = nil, remaining: Int? = nil, reset: Int? = nil,
    login: String? = nil
  ) {
    let now = time.epochSeconds()
    let user = login.flatMap(oauthUser(login:))?.id
    state.withLock { s in
      var w = s.window(resource, user: user, now: now)
      if let limit { w.limit = max(0, limit) }
      if let remaining {
        w.remaining = max(0, remaining)
        w.used = max(0, w.limit - w.remaining)
      }
      if let reset { w.reset = reset }
      s.store(w, resource, user: user)
    }
  }

  /// The current window of a resource, rolled forward to now: the shared one, or `login`'s own.
  public func rateWindow(_ resource: DoubleResource, login: String? = nil) -> RateWindow? {
    let now = time.epochSeconds()
    if let login {
      guard let user = oauthUser(login: login)?.id else { return nil }
      return state.withLock { $0.window(resource, user: user, now: now) }
    }
    return state.withLock { s in
      s.windows[resource]?.roll(now: now)
      return s.windows[resource]
    }
  }

  /// Ordered hits for a query as `viewer` sees them (see `SearchEngine.search`), from the small
  /// recent-results cache when possible.
  func hits(
    q: String, sort: DoubleSearchSort?, ascending: Bool, viewer: DoubleViewer = .everyone,
    moved: [Int: Int] = [:]
  )
    -> [SearchHit]
  {
    // Moved star counts change the answer from one call to the next: nothing is kept.
    if !moved.isEmpty {
      return engine.search(SearchQuery(q), sort: sort, ascending: ascending, viewer: viewer, moved: moved)
    }
    let query = SearchQuery(q)
    let unranged = query.withoutRanges
    let key = "\(viewer)|\(sort?.rawValue ?? "best")|\(ascending)"
    let cached = searchCache.withLock { cache in cache.first { $0.key == key && $0.query == unranged }?.hits }
    let hits =
      cached ?? engine.search(unranged, sort: sort, ascending: ascending, viewer: viewer)
    if cached == nil {
      searchCache.withLock { cache in
        if cache.count >= 8 { cache.removeFirst() }
        cache.append((key: key, query: unranged, hits: hits))
      }
    }
    return query == unranged ? hits : engine.within(query, hits)
  }

  // MARK: Dispatch

  /// Counts the call, then serves it.
  func serve(_ route: Route, _ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    let arrived = milliseconds()
    let identity = identify(request, route: route)
    state.withLock { $0.counters.inFlight += 1 }
    defer { state.withLock { $0.counters.inFlight -= 1 } }
    do {
      var answer = try await serveUncounted(route, request, context, identity)
      if !route.isOAuthApp, route.endpoint != .avatar {
        switch identity {
        // GitHub App user tokens carry no scopes, and GitHub sends no `X-OAuth-Scopes` for them.
        case .reader(let record) where record.kind == .oauthApp:
          answer.headers.replaceOrAdd(name: "X-OAuth-Scopes", value: record.scopes.joined(separator: ", "))
        case .server:
          if let scopes = configuration.serverTokenAccess.scopesHeader {
            answer.headers.replaceOrAdd(name: "X-OAuth-Scopes", value: scopes)
          }
        default: break
        }
      }
      let flowError = answer.headers[Self.flowErrorHeader]
      answer.headers.remove(name: Self.flowErrorHeader)
      let response = wire(answer, route, request, context)
      let record = DoubleRequestRecord(
        endpoint: route.endpoint, arrivedMs: arrived, finishedMs: milliseconds(),
        status: response.status.code,
        identity: identity.logName, error: flowError)
      state.withLock {
        $0.counters.record(route.endpoint, status: response.status.code)
        $0.requests.append(record)
      }
      return response
    } catch {
      let record = DoubleRequestRecord(
        endpoint: route.endpoint, arrivedMs: arrived, finishedMs: milliseconds(), status: 0,
        identity: identity.logName)
      state.withLock {
        $0.counters.cancelled += 1
        $0.requests.append(record)
      }
      throw error
    }
  }

  private func milliseconds() -> Int { time.epochMilliseconds() }

  /// The most recent requests (at most `2 × 8192`), oldest first.
  public func requestLog() -> [DoubleRequestRecord] { state.withLock { $0.requests.records } }

  /// Latency, faults, rate limit, then the endpoint itself.
  private func serveUncounted(
    _ route: Route, _ request: HTTPRequest, _ context: RequestContext, _ identity: DoubleIdentity
  ) async throws
    -> HTTPResponse
  {
    guard route.methods.contains(request.method) || (request.method == .head && route.methods.contains(.get))
    else {
      return GitHubResponses.error(
        HTTPStatus(code: 404), message: "Not Found", documentation: "https://docs.github.com/rest")
    }
    if identity.isRefused, !route.isOAuthApp, route.endpoint != .avatar {
      return GitHubResponses.error(
        HTTPStatus(code: 401), message: "Bad credentials", documentation: "https://docs.github.com/rest")
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
    var response = try respond(route, request, context, identity)
    if let mode, !route.isOAuthApp, Self.applies(mode, to: route) {
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
    try await Task.sleep(for: limit)
  }

  private func respond(
    _ route: Route, _ request: HTTPRequest, _ context: RequestContext, _ identity: DoubleIdentity
  ) throws
    -> HTTPResponse
  {
    let base = configuration.publicBaseURL ?? "http://" + (request.headers["Host"] ?? "127.0.0.1")
    switch route {
    case .search: return search(request, context, base: base, viewer: viewer(of: identity))
    case .history(let o, let r):
      return history(owner: o, repo: r, request, context, base: base, viewer: viewer(of: identity))
    case .count(let o, let r): return count(owner: o, repo: r, request, context, viewer: viewer(of: identity))
    case .repository(let o, let r):
      return repository(owner: o, repo: r, request, context, base: base, viewer: viewer(of: identity))
    case .userRepos(let login): return userRepos(login: login, request, context, base: base)
    case .avatar(let id): return avatar(id: id, request)
    case .rateLimit: return rateLimitStatus(user: identity.userID)
    case .user:
      if identity == .server { return serverUser(request, context, base: base) }
      return authenticatedUser(request, context, identity, base: base)
    case .authorize: return authorize(request)
    case .accessToken, .refreshToken: return accessToken(request)
    case .revokeToken(let clientID): return revokeToken(clientID: clientID, request)
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
    let now = time.epochSeconds()
    let user = identify(request).userID
    let (allowed, window) = state.withLock { s -> (Bool, RateWindow) in
      var w = s.window(resource, user: user, now: now)
      let ok = w.take(now: now)
      s.store(w, resource, user: user)
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

  /// Rate headers without spending (for 304s, which GitHub does not count), from `user`'s windows
  /// or the shared ones.
  func peek(_ resource: DoubleResource, user: Int? = nil) -> HTTPHeaders {
    let now = time.epochSeconds()
    let w = state.withLock { s -> RateWindow in
      let w = s.window(resource, user: user, now: now)
      s.store(w, resource, user: user)
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
