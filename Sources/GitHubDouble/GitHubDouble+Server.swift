import HTTP
import HTTPServer
import Synchronization

extension GitHubDouble {
  /// Starts an HTTPServer on host:port (0 = a free port) and returns the bound port.
  public func start(host: String = "127.0.0.1", port: Int = 0) throws -> Int {
    var config = HTTPServerConfiguration(time: time)
    config.host = host
    config.port = port
    config.serverName = "GitHub.com"
    let server = HTTPServer(configuration: config, handler: handler)
    let bound = try server.start()
    let previous = serverBox.withLock { box -> HTTPServer? in
      let old = box
      box = server
      return old
    }
    if let previous { Task { await previous.shutdown() } }
    return bound
  }

  /// Drains and stops the server started by `start`, if any.
  public func shutdown() async {
    // Dropping the server here also breaks the double <-> handler reference cycle.
    let server = serverBox.withLock { box -> HTTPServer? in
      let s = box
      box = nil
      return s
    }
    await server?.shutdown()
  }

  /// The dispatcher: GitHub endpoints, avatars and the control API on one Router.
  func makeRouter() -> Router {
    var r = Router()
    r.get("/search/repositories") { [self] req, ctx in try await serve(.search, req, ctx) }
    r.get("/repos/{owner}/{repo}/stargazers/history") { [self] req, ctx in
      try await serve(.history(ctx.parameters["owner"] ?? "", ctx.parameters["repo"] ?? ""), req, ctx)
    }
    r.get("/repos/{owner}/{repo}/stargazers/count") { [self] req, ctx in
      try await serve(.count(ctx.parameters["owner"] ?? "", ctx.parameters["repo"] ?? ""), req, ctx)
    }
    r.get("/repos/{owner}/{repo}") { [self] req, ctx in
      try await serve(.repository(ctx.parameters["owner"] ?? "", ctx.parameters["repo"] ?? ""), req, ctx)
    }
    r.get("/users/{login}/repos") { [self] req, ctx in
      try await serve(.userRepos(ctx.parameters["login"] ?? ""), req, ctx)
    }
    r.get("/u/{id}") { [self] req, ctx in try await serve(.avatar(ctx.parameters["id"] ?? ""), req, ctx) }
    r.get("/rate_limit") { [self] req, ctx in try await serve(.rateLimit, req, ctx) }
    r.get("/user") { [self] req, ctx in try await serve(.user, req, ctx) }
    r.get("/login/oauth/authorize") { [self] req, ctx in try await serve(.authorize, req, ctx) }
    r.post("/login/oauth/authorize") { [self] req, ctx in try await serve(.authorize, req, ctx) }
    r.post("/login/oauth/access_token") { [self] req, ctx in
      let refresh = Self.formValue("grant_type", req) == "refresh_token"
      return try await serve(refresh ? .refreshToken : .accessToken, req, ctx)
    }
    r.delete("/applications/{client_id}/token") { [self] req, ctx in
      try await serve(.revokeToken(ctx.parameters["client_id"] ?? ""), req, ctx)
    }
    r.post("/_double/oauth/revoke") { [self] req, _ in oauthControl(req, "revoke") }
    r.post("/_double/oauth/expire-codes") { [self] req, _ in oauthControl(req, "expire-codes") }
    r.get("/_double/oauth/tokens") { [self] req, _ in oauthControl(req, "tokens") }
    r.post("/_double/oauth/advance") { [self] req, _ in oauthControl(req, "advance") }
    r.get("/_double/counters") { [self] _, _ in controlJSON(counters().json()) }
    r.get("/_double/installation") { [self] _, _ in installationJSON() }
    r.get("/_double/requests") { [self] req, _ in
      let name = req.queryValue("endpoint")
      let endpoint = name.flatMap(DoubleEndpoint.init(rawValue:))
      if name != nil && endpoint == nil { return HTTPResponse.text(.badRequest, "unknown endpoint") }
      return controlJSON(state.withLock { $0.requests.json(endpoint: endpoint) })
    }
    r.post("/_double/reset") { [self] _, _ in
      reset()
      return controlJSON(Array("{\"ok\":true}".utf8))
    }
    r.get("/_double/faults") { [self] _, _ in controlJSON(Self.faultsJSON(faults())) }
    r.post("/_double/faults") { [self] req, _ in updateFaults(req) }
    r.post("/_double/ratelimit") { [self] req, _ in updateRateLimit(req) }
    r.fallback { [self] req, ctx in
      if req.path.hasPrefix("/_double/") { return HTTPResponse.text(.notFound, "unknown control endpoint") }
      return try await serve(.notFound, req, ctx)
    }
    return r
  }
}
