import HTTP

extension GitHubDouble {
  /// `POST /_double/faults?…`: updates the fault settings and echoes them.
  func updateFaults(_ request: HTTPRequest) -> HTTPResponse {
    switch Self.parseFaults(request.queryItems, into: faults()) {
    case .success(let f): setFaults(f)
    case .failure(let e): return HTTPResponse.text(.badRequest, e.message)
    }
    return controlJSON(Self.faultsJSON(faults()))
  }

  /// `POST /_double/ratelimit?resource=search&remaining=0&reset=<unix>&limit=N[&login=L]` (with
  /// `login`, that signed-in user's own window).
  func updateRateLimit(_ request: HTTPRequest) -> HTTPResponse {
    guard let resource = DoubleResource(rawValue: request.queryValue("resource") ?? "search") else {
      return HTTPResponse.text(.badRequest, "resource must be search or core")
    }
    var values: [String: Int] = [:]
    for name in ["limit", "remaining", "reset"] {
      guard let raw = request.queryValue(name) else { continue }
      guard let v = Int(raw) else { return HTTPResponse.text(.badRequest, "\(name) must be an integer") }
      values[name] = v
    }
    let login = request.queryValue("login")
    if let login, oauthUser(login: login) == nil {
      return HTTPResponse.text(.badRequest, "login is not a user")
    }
    setRateLimit(
      resource: resource, limit: values["limit"], remaining: values["remaining"], reset: values["reset"],
      login: login)
    var w = JSONWriter()
    if let win = rateWindow(resource, login: login) {
      w.objectStart()
      w.field("resource", resource.rawValue)
      w.field("limit", win.limit)
      w.field("remaining", win.remaining)
      w.field("reset", win.reset)
      w.field("used", win.used)
      w.objectEnd()
    }
    return controlJSON(w.bytes)
  }

  func controlJSON(_ body: [UInt8]) -> HTTPResponse {
    HTTPResponse(
      status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
      body: .bytes(body))
  }

  /// Applies `mode` (a `HostileMode` name, or `none`), `rate5xx`, `hang`, `truncated`, `secondary`
  /// (rates), `starDrift` (repositories per search call), `retryAfter` (s), `hangLimit` (ms),
  /// `latency` (ms or a..b, "0" or "none" clears) and `latency.<endpoint>` to `base`.
  static func parseFaults(_ items: [(name: String, value: String)], into base: FaultSettings) -> Result<
    FaultSettings, HTTPError
  > {
    var f = base
    for (name, value) in items {
      func rate() -> Double? {
        guard let d = Double(value), d >= 0, d <= 1 else { return nil }
        return d
      }
      switch name {
      case "rate5xx", "fault-rate", "faultRate5xx":
        guard let r = rate() else { return .failure(HTTPError(.badRequest, "\(name) must be in 0...1")) }
        f.rate5xx = r
      case "hang", "hangRate":
        guard let r = rate() else { return .failure(HTTPError(.badRequest, "\(name) must be in 0...1")) }
        f.hangRate = r
      case "truncated", "truncatedJSONRate":
        guard let r = rate() else { return .failure(HTTPError(.badRequest, "\(name) must be in 0...1")) }
        f.truncatedJSONRate = r
      case "secondary", "secondaryLimitRate":
        guard let r = rate() else { return .failure(HTTPError(.badRequest, "\(name) must be in 0...1")) }
        f.secondaryLimitRate = r
      case "mode":
        if value == "none" || value.isEmpty {
          f.mode = nil
        } else {
          guard let m = HostileMode(rawValue: value) else {
            return .failure(HTTPError(.badRequest, "unknown mode \(value) (see github-double --help)"))
          }
          f.mode = m
        }
      case "starDrift", "star-drift":
        guard let v = Int(value), (0...10_000).contains(v) else {
          return .failure(HTTPError(.badRequest, "\(name) must be a count of repositories in 0...10000"))
        }
        f.starDrift = v
      case "retryAfter":
        guard let v = Int(value), v >= 0 else {
          return .failure(HTTPError(.badRequest, "retryAfter must be ≥ 0"))
        }
        f.secondaryRetryAfter = v
      case "hangLimit":
        guard let v = Int(value), v >= 0 else {
          return .failure(HTTPError(.badRequest, "hangLimit must be ms ≥ 0"))
        }
        f.hangLimit = .milliseconds(v)
      case "latency":
        if value == "none" || value == "0" {
          f.latency.all = nil
        } else {
          guard let r = LatencyRange(parsing: value) else {
            return .failure(HTTPError(.badRequest, "latency must be N or A..B (ms)"))
          }
          f.latency.all = r
        }
      case _ where name.hasPrefix("latency."):
        guard let e = DoubleEndpoint(rawValue: String(name.dropFirst("latency.".count))) else {
          return .failure(HTTPError(.badRequest, "unknown endpoint in \(name)"))
        }
        if value == "none" {
          f.latency.perEndpoint[e] = nil
        } else {
          guard let r = LatencyRange(parsing: value) else {
            return .failure(HTTPError(.badRequest, "\(name) must be N or A..B (ms)"))
          }
          f.latency.perEndpoint[e] = r
        }
      default:
        return .failure(HTTPError(.badRequest, "unknown fault parameter \(name)"))
      }
    }
    return .success(f)
  }

  static func faultsJSON(_ f: FaultSettings) -> [UInt8] {
    var w = JSONWriter()
    w.objectStart()
    w.key("rate5xx")
    w.double(f.rate5xx)
    w.key("hang")
    w.double(f.hangRate)
    w.key("truncated")
    w.double(f.truncatedJSONRate)
    w.key("secondary")
    w.double(f.secondaryLimitRate)
    w.field("retryAfter", f.secondaryRetryAfter)
    w.field("mode", f.mode?.rawValue)
    w.field("starDrift", f.starDrift)
    w.field("latency", f.latency.all?.description)
    w.key("perEndpointLatency")
    w.objectStart()
    for e in DoubleEndpoint.allCases {
      if let r = f.latency.perEndpoint[e] {
        w.dynamicKey(e.rawValue)
        w.string(r.description)
      }
    }
    w.objectEnd()
    w.objectEnd()
    return w.bytes
  }
}
