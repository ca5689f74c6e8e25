import Clocks
import HTTP
import HTTPServer
import Synchronization

extension GitHubDouble {
  /// `GET /search/repositories`; private repositories only for those who may see them (`viewer`).
  func search(_ request: HTTPRequest, _ context: RequestContext, base: String, viewer: DoubleViewer)
    -> HTTPResponse
  {
    let (rate, limited) = take(.search, context, request)
    if let limited { return limited }
    let q = request.queryValue("q") ?? ""
    if q.trimmingSpaces.isEmpty {
      return withHeaders(GitHubResponses.validationFailed(code: "missing", message: nil), rate)
    }
    if q.count > 256 {
      return withHeaders(
        GitHubResponses.validationFailed(
          code: "invalid", message: "The search is longer than 256 characters."),
        rate)
    }
    let perPage = Self.perPage(request, max: 100)
    let page = Self.page(request)
    // page > 1000 always starts past the 1000th result; checking it first keeps the product small.
    if page > 1000 || (page - 1) * perPage >= 1000 { return GitHubResponses.thousandCap(extra: rate) }
    let start = (page - 1) * perPage
    let sort = request.queryValue("sort").flatMap(DoubleSearchSort.init(rawValue:))
    let ascending = request.queryValue("order")?.lowercased() == "asc"
    let moved = driftStars()
    let hits = self.hits(q: q, sort: sort, ascending: ascending, viewer: viewer, moved: moved)
    var end = min(start + perPage, hits.count, 1000)
    // Fixed per query and page, so a page is short every time it is fetched, as a cached one would be.
    let pageDraw = SplitMix64.mix(
      SplitMix64.hash(configuration.seed, Self.stableHash(q), UInt64(page * 1000 + perPage)))
    let short = end - start > 1 && Double(pageDraw >> 11) * 0x1.0p-53 < configuration.shortPageRate
    if short { end = start + max(1, (end - start) / 3) }
    let writer = RepositoryJSON(
      apiBase: base, htmlBase: configuration.htmlBaseURL, legacyRate: configuration.legacyItemRate)
    var w = JSONWriter(capacity: 64 + max(0, end - start) * 6000)
    w.objectStart()
    w.field("total_count", hits.count)
    w.field("incomplete_results", short)
    w.key("items")
    w.arrayStart()
    if start < end {
      for hit in hits[start..<end] {
        let r = catalog.repositories[hit.index]
        writer.writeRepository(
          r, owner: catalog.owner(of: r), score: hit.score, stars: stars(at: hit.index, moved: moved),
          into: &w)
      }
    }
    w.arrayEnd()
    w.objectEnd()
    var headers = rate
    headers.add(name: "Cache-Control", value: "no-cache")
    headers.add(name: "Vary", value: "Accept, Accept-Encoding, Accept, X-Requested-With")
    let lastPage = (min(hits.count, 1000) + perPage - 1) / perPage
    if hits.count > 0,
      let link = GitHubResponses.link(
        base: base, path: request.path, query: request.query, page: page, lastPage: lastPage)
    {
      headers.add(name: "Link", value: link)
    }
    return GitHubResponses.json(.ok, w.bytes, extra: headers)
  }

  /// `GET /repos/{owner}/{repo}/stargazers/history`: weekly buckets, newest first.
  func history(
    owner: String, repo: String, _ request: HTTPRequest, _ context: RequestContext, base: String,
    viewer: DoubleViewer
  )
    -> HTTPResponse
  {
    let docs = "https://docs.github.com/rest/activity/starring#get-repository-star-history"
    guard let index = catalog.repositoryIndex(owner: owner, name: repo), catalog.isVisible(index, to: viewer)
    else {
      return notFound(docs, context, request)
    }
    let perPage = Self.perPage(request, max: 30)
    let page = Self.page(request)
    if page > 100 {
      let (rate, limited) = take(.core, context, request)
      if let limited { return limited }
      return withHeaders(
        GitHubResponses.error(.unprocessableContent, message: "Validation Failed", documentation: docs), rate)
    }
    let h = StarHistory(repo: catalog.repositories[index], referenceTime: catalog.referenceTime)
    var w = JSONWriter()
    w.arrayStart()
    for week in h.page(page, perPage: perPage, cumulativeTotals: configuration.cumulativeHistoryTotals) {
      w.objectStart()
      w.field("week", week.week)
      w.field("total", week.total)
      w.key("days")
      w.arrayStart()
      for d in week.days { w.int(d) }
      w.arrayEnd()
      w.objectEnd()
    }
    w.arrayEnd()
    var extra: HTTPHeaders = [:]
    if let link = GitHubResponses.link(
      base: base, path: request.path, query: request.query, page: page,
      lastPage: h.pageCount(perPage: perPage))
    {
      extra.add(name: "Link", value: link)
    }
    return conditional(w.bytes, request, context, extra: extra)
  }

  /// `GET /repos/{owner}/{repo}/stargazers/count`.
  func count(
    owner: String, repo: String, _ request: HTTPRequest, _ context: RequestContext, viewer: DoubleViewer
  )
    -> HTTPResponse
  {
    guard let index = catalog.repositoryIndex(owner: owner, name: repo), catalog.isVisible(index, to: viewer)
    else {
      return notFound("https://docs.github.com/rest/activity/starring#get-stargazer-count", context, request)
    }
    var w = JSONWriter()
    w.objectStart()
    w.field("count", catalog.repositories[index].stars)
    w.objectEnd()
    return conditional(w.bytes, request, context, extra: [:])
  }

  /// `GET /repos/{owner}/{repo}`.
  func repository(
    owner: String, repo: String, _ request: HTTPRequest, _ context: RequestContext, base: String,
    viewer: DoubleViewer
  )
    -> HTTPResponse
  {
    guard let index = catalog.repositoryIndex(owner: owner, name: repo), catalog.isVisible(index, to: viewer)
    else {
      return notFound("https://docs.github.com/rest/repos/repos#get-a-repository", context, request)
    }
    let r = catalog.repositories[index]
    var w = JSONWriter(capacity: 6000)
    RepositoryJSON(
      apiBase: base, htmlBase: configuration.htmlBaseURL, legacyRate: configuration.legacyItemRate
    )
    .writeRepository(r, owner: catalog.owner(of: r), score: nil, into: &w)
    return conditional(w.bytes, request, context, extra: [:])
  }

  /// `GET /users/{login}/repos`, sorted by full name like GitHub's default.
  func userRepos(login: String, _ request: HTTPRequest, _ context: RequestContext, base: String)
    -> HTTPResponse
  {
    guard let o = catalog.ownerIndex(login: login) else {
      return notFound(
        "https://docs.github.com/rest/repos/repos#list-repositories-for-a-user", context, request)
    }
    let owner = catalog.owners[o]
    // This endpoint lists public repositories only, whoever asks.
    let repos = owner.repositoryIndices.filter { $0 < catalog.publicCount }.map { catalog.repositories[$0] }
      .sorted { $0.name.lowercased() < $1.name.lowercased() }
    let perPage = Self.perPage(request, max: 100)
    let page = min(Self.page(request), 100_000)
    let start = min((page - 1) * perPage, repos.count)
    let end = min(start + perPage, repos.count)
    let writer = RepositoryJSON(
      apiBase: base, htmlBase: configuration.htmlBaseURL, legacyRate: configuration.legacyItemRate)
    var w = JSONWriter()
    w.arrayStart()
    for r in repos[start..<end] { writer.writeRepository(r, owner: owner, score: nil, into: &w) }
    w.arrayEnd()
    var extra: HTTPHeaders = [:]
    let last = max(1, (repos.count + perPage - 1) / perPage)
    if let link = GitHubResponses.link(
      base: base, path: request.path, query: request.query, page: page, lastPage: last)
    {
      extra.add(name: "Link", value: link)
    }
    return conditional(w.bytes, request, context, extra: extra)
  }

  /// `GET /u/{id}?s=N`: a PNG identicon, cached and revalidated like GitHub's avatar host.
  func avatar(id: String, _ request: HTTPRequest) -> HTTPResponse {
    guard let numeric = Int(id), numeric >= 0 else {
      return HTTPResponse.text(.notFound, "Not Found")
    }
    let requested = Int(request.queryValue("s") ?? request.queryValue("size") ?? "") ?? 460
    let size = min(max(requested, 1), 460)
    let key = numeric &* 512 &+ size
    let png: [UInt8]
    if let cached = avatarCache.withLock({ $0[key] }) {
      png = cached
    } else {
      png = Identicon.png(id: numeric, size: size, seed: configuration.seed)
      avatarCache.withLock { cache in
        if cache.count >= 512 { cache.removeAll(keepingCapacity: true) }
        cache[key] = png
      }
    }
    let etag = GitHubResponses.etag(png, weak: false)
    var headers: HTTPHeaders = [
      "Content-Type": "image/png", "Cache-Control": "max-age=300", "ETag": etag,
      "Access-Control-Allow-Origin": "*", "X-Content-Type-Options": "nosniff",
    ]
    if GitHubResponses.matches(request, etag) {
      headers.remove(name: "Content-Type")
      return HTTPResponse(status: .notModified, headers: headers)
    }
    return HTTPResponse(status: .ok, headers: headers, body: .bytes(png))
  }

  /// `GET /rate_limit`, which does not spend any limit: the shared windows, or `user`'s own.
  func rateLimitStatus(user: Int? = nil) -> HTTPResponse {
    let now = time.epochSeconds()
    let windows = state.withLock { s -> [DoubleResource: RateWindow] in
      if let user {
        return [
          .core: s.window(.core, user: user, now: now), .search: s.window(.search, user: user, now: now),
        ]
      }
      for r in DoubleResource.allCases { s.windows[r]?.roll(now: now) }
      return s.windows
    }
    let core = windows[.core] ?? RateWindow(limit: configuration.coreLimitPerHour, window: 3600, now: now)
    let search =
      windows[.search] ?? RateWindow(limit: configuration.searchLimitPerMinute, window: 60, now: now)
    func write(_ w: RateWindow, _ writer: inout JSONWriter) {
      writer.objectStart()
      writer.field("limit", w.limit)
      writer.field("used", w.used)
      writer.field("remaining", w.remaining)
      writer.field("reset", w.reset)
      writer.objectEnd()
    }
    var w = JSONWriter()
    w.objectStart()
    w.key("resources")
    w.objectStart()
    w.key("core")
    write(core, &w)
    w.key("search")
    write(search, &w)
    w.key("graphql")
    write(RateWindow(limit: 5000, window: 3600, now: now), &w)
    w.key("code_search")
    write(RateWindow(limit: 10, window: 60, now: now), &w)
    w.objectEnd()
    w.key("rate")
    write(core, &w)
    w.objectEnd()
    var extra = GitHubResponses.rateHeaders(core, .core)
    extra.add(name: "Cache-Control", value: "no-cache")
    return GitHubResponses.json(.ok, w.bytes, extra: extra)
  }

  // MARK: Helpers

  /// 200 with ETag, or 304 (free of charge) when `If-None-Match` matches.
  private func conditional(
    _ body: [UInt8], _ request: HTTPRequest, _ context: RequestContext, extra: HTTPHeaders
  )
    -> HTTPResponse
  {
    let etag = GitHubResponses.etag(body, weak: true)
    var headers = extra
    headers.add(name: "Cache-Control", value: "private, max-age=60, s-maxage=60")
    headers.add(name: "Vary", value: "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding")
    headers.add(name: "ETag", value: etag)
    if GitHubResponses.matches(request, etag) {
      var h = peek(.core, user: identify(request).userID)
      for f in headers { h.add(name: f.name, value: f.value) }
      return HTTPResponse(status: .notModified, headers: h)
    }
    let (rate, limited) = take(.core, context, request)
    if let limited { return limited }
    var all = rate
    for f in headers { all.add(name: f.name, value: f.value) }
    return GitHubResponses.json(.ok, body, extra: all)
  }

  private func notFound(_ docs: String, _ context: RequestContext, _ request: HTTPRequest) -> HTTPResponse {
    let (rate, limited) = take(.core, context, request)
    if let limited { return limited }
    return GitHubResponses.error(.notFound, message: "Not Found", documentation: docs, extra: rate)
  }

  private func withHeaders(_ response: HTTPResponse, _ extra: HTTPHeaders) -> HTTPResponse {
    var r = response
    for f in extra { r.headers.add(name: f.name, value: f.value) }
    return r
  }

  /// `page`, at least 1 (malformed values mean 1, as on GitHub).
  static func page(_ request: HTTPRequest) -> Int { max(1, Int(request.queryValue("page") ?? "") ?? 1) }

  /// `per_page` clamped to 1…max (default 30), like GitHub.
  static func perPage(_ request: HTTPRequest, max: Int) -> Int {
    guard let v = Int(request.queryValue("per_page") ?? ""), v > 0 else { return min(30, max) }
    return min(v, max)
  }
}
