import Clocks
import Credentials
import CurlClient
import Encodings
import HTTP
import SharedStore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The typed GitHub REST layer: repository search, star history and avatars, with a
/// byte-bounded cache, ETag revalidation, coalescing of identical requests and local enforcement
/// of GitHub's per-resource rate limits.
public final class GitHubClient: Sendable {
  /// GitHub's message for pages past the 1000-result cap, also used for the local refusal.
  public static let searchCapMessage = "Only the first 1000 search results are available"
  /// Largest avatar size GitHub serves.
  public static let maxAvatarSize = 460

  private let state: GitHubState
  /// The API transport (the avatar host is not asked for anything but avatars).
  private let transport: any HTTPClientTransport
  private let apiBase: String
  private let avatarBase: String
  private let apiHeaders: HTTPHeaders
  private let avatarHeaders: HTTPHeaders
  private let searchTTL: Double
  private let historyTTL: Double
  private let avatarTTL: Double
  private let maxAvatarBytes: Int
  /// Cleans and redacts every string decoded from upstream.
  private let text: UpstreamText
  /// Removes the server's token; a reader's call adds the reader's.
  private let redactor: Redactor
  /// What answers taught about who sees what: repositories' visibility, readers whose answers
  /// contradicted their scopes, and what the server's token may see.
  let facts: PrivacyFacts

  /// A client over `transport`. Avatar fetches use `avatarTransport` when given, so they have their
  /// own budget of transfers and connections; otherwise they share `transport`.
  /// With `sharedStore`, cached values, the rate-limit ledger and coalescing are shared with the
  /// other instances using it, behind this process's own cache.
  /// `time` is where "now" comes from (expiries, rate-limit resets); tests pass their own.
  public init(
    configuration: GitHubConfiguration, transport: any HTTPClientTransport,
    avatarTransport: (any HTTPClientTransport)? = nil, sharedStore: (any SharedStore)? = nil,
    time: TimeSource
  ) {
    apiBase = GitHubClient.trimmedBase(configuration.apiBase)
    avatarBase = GitHubClient.trimmedBase(configuration.avatarBase)
    var headers: HTTPHeaders = [
      "User-Agent": GitHubClient.headerSafe(configuration.userAgent),
      "Accept": "application/vnd.github+json",
      "X-GitHub-Api-Version": "2022-11-28",
    ]
    avatarHeaders = headers
    let token = configuration.token.map(GitHubClient.headerSafe)
    if let token, !token.isEmpty { headers.add(name: "Authorization", value: "Bearer \(token)") }
    apiHeaders = headers
    searchTTL = configuration.searchTTL.seconds
    historyTTL = configuration.historyTTL.seconds
    avatarTTL = configuration.avatarTTL.seconds
    maxAvatarBytes = max(0, configuration.maxAvatarBytes)
    self.transport = transport
    var routed = transport
    if let avatarTransport {
      let prefix = GitHubClient.trimmedBase(configuration.avatarBase) + "/u/"
      routed = HostSplitTransport(api: transport, avatars: avatarTransport, avatarPrefix: prefix)
    }
    let redactor = Redactor(secret: configuration.token)
    self.redactor = redactor
    text = UpstreamText(redactor: redactor)
    // A token not checked yet may see private repositories (`checkServerToken` tells).
    let facts = PrivacyFacts(serverAccess: token?.isEmpty == false ? .unknown : nil)
    self.facts = facts
    state = GitHubState(
      transport: routed, now: { time.wallSeconds() }, cacheBytes: configuration.cacheBytes,
      redactor: redactor,
      log: configuration.eventLog, shared: sharedStore, facts: facts,
      visibilityLifetime: max(configuration.searchTTL.seconds, configuration.historyTTL.seconds))
  }

  /// One page of `GET /search/repositories`. `perPage` is 1…100 and `page` starts at 1; a page
  /// past the first 1000 results is refused locally with GitHub's own 422 message.
  /// `reload` bypasses a fresh cache entry (still coalesced, still rate-limit-guarded).
  /// With `reader`, the call goes out with the reader's token and counts on the reader's ledger; a
  /// 401 then throws `.unauthorized`. Without, it uses the server's token (or none), and the page
  /// holds public repositories only: anything else the token sees is left out (and counted).
  /// A page with any non-public item is the reader's own: it is cached for them alone, in this
  /// process only. A reader whose token may see private repositories always gets their own answer.
  public func searchRepositories(
    _ query: SearchQuery, page: Int, perPage: Int = 100, reload: Bool = false,
    as reader: ReaderCredential? = nil
  )
    async throws(GitHubError) -> SearchPage
  {
    guard (1...100).contains(perPage) else { throw .invalidInput("perPage must be between 1 and 100") }
    guard page >= 1 else { throw .invalidInput("page must be at least 1") }
    let (last, overflow) = page.multipliedReportingOverflow(by: perPage)
    guard !overflow, last <= 1000 else { throw .validation(GitHubClient.searchCapMessage) }
    let url = try searchURL(query, page: page, perPage: perPage)
    let scope = readerScope(reader)
    let key = Self.searchKey(url, scope)
    // Most pages are fresh hits, which need the key alone: the request and its decoder are made for a miss.
    if !reload, let (fresh, stale) = try freshHit(key, as: SearchPage.self) {
      var hit = fresh
      hit.isStale = stale
      return hit
    }
    let text = scope.map { UpstreamText(redactor: $0.redactor) } ?? self.text
    var fetch = Fetch(
      key: key, endpoint: .search, resource: .search,
      request: ClientRequest(url: url, headers: reader.map(readerHeaders) ?? apiHeaders), ttl: searchTTL
    ) { body, headers throws(GitHubError) in
      try ResponseDecoding.searchPage(body, headers: headers, page: page, perPage: perPage, text: text)
    }
    fetch.reader = scope
    if let scope, scope.access.maySeePrivate {
      fetch.scope = .own(publicKey: url)
    } else if scope == nil {
      fetch.screen = Self.screen
    }
    var (result, stale) = try await load(fetch, reload: reload)
    result.isStale = stale
    return result
  }

  /// Whether `searchRepositories` with these arguments would be answered from this process's cache,
  /// fresh, without a call: a synchronous probe (no I/O, no wait, not counted as a hit), so that a
  /// caller can decide how to answer from the cache's state alone. The shared store is not asked.
  public func hasFreshSearchPage(
    _ query: SearchQuery, page: Int, perPage: Int = 100, as reader: ReaderCredential? = nil
  ) -> Bool {
    guard (1...100).contains(perPage), page >= 1 else { return false }
    let (last, overflow) = page.multipliedReportingOverflow(by: perPage)
    guard !overflow, last <= 1000, let url = try? searchURL(query, page: page, perPage: perPage) else {
      return false
    }
    return state.isFresh(Self.searchKey(url, readerScope(reader)))
  }

  /// Where a search page read as `scope` is cached: under the reader's own key when their token may
  /// see private repositories, else under its URL (shared).
  private static func searchKey(_ url: String, _ scope: ReaderScope?) -> String {
    guard let scope, scope.access.maySeePrivate else { return url }
    return scope.ownKey(url)
  }

  /// The weekly star history, newest first (`GET /repos/{owner}/{repo}/stargazers/history`).
  /// With `reader`, as in `searchRepositories`: the reader's token and ledger.
  ///
  /// A history says nothing of its repository's visibility, so what search answers said decides
  /// whose it is: a repository known to be public has a shared history; any other, fetched with a
  /// token that may see private repositories, is the reader's own. An anonymous reader never gets
  /// the history of a repository that is not public (`.notFound`, counted): when no answer has said
  /// yet and the server's token may see private data, `GET /repos/{owner}/{repo}` is asked first.
  public func starHistory(
    owner: String, repo: String, perPage: Int = 30, as reader: ReaderCredential? = nil
  ) async throws(GitHubError)
    -> StarHistory
  {
    guard (1...30).contains(perPage) else { throw .invalidInput("perPage must be between 1 and 30") }
    let url = try repoURL(owner: owner, repo: repo, suffix: "/stargazers/history?per_page=\(perPage)")
    let scope = readerScope(reader)
    let text = scope.map { UpstreamText(redactor: $0.redactor) } ?? self.text
    var fetch = Fetch(
      key: url, endpoint: .history, resource: .core,
      request: ClientRequest(url: url, headers: reader.map(readerHeaders) ?? apiHeaders), ttl: historyTTL
    ) { body, _ throws(GitHubError) in try ResponseDecoding.starHistory(body, text: text) }
    fetch.reader = scope
    let known = facts.visibility(of: owner + "/" + repo, now: state.now())
    if let scope {
      // Known not public, or unknown to a token that may see private data: the reader's own.
      if known == false || (known == nil && scope.access.maySeePrivate) {
        fetch.key = scope.ownKey(url)
        fetch.scope = .own(publicKey: url)
      }
    } else if known == false {
      throw await withheldHistory()
    } else if known == nil, facts.serverMaySeePrivate {
      switch try await visibility(owner: owner, repo: repo) {
      case true: break
      case false: throw await withheldHistory()
      case nil: throw .notFound
      }
    }
    var (result, stale) = try await load(fetch, reload: false)
    result.isStale = stale
    return result
  }

  /// Whether `owner/repo` is public, as `GET /repos/{owner}/{repo}` with the server's token says
  /// (cached; a public answer is shared, any other stays in this process under the server's name);
  /// nil when GitHub knows no such repository.
  private func visibility(owner: String, repo: String) async throws(GitHubError) -> Bool? {
    let url = try repoURL(owner: owner, repo: repo, suffix: "")
    var fetch = Fetch(
      key: AnswerScope.serverKey(url), endpoint: .repository, resource: .core,
      request: ClientRequest(url: url, headers: apiHeaders), ttl: historyTTL
    ) { body, _ throws(GitHubError) in try ResponseDecoding.repositoryVisibility(body) }
    fetch.scope = .own(publicKey: url)
    let visibility: RepositoryVisibility
    do {
      visibility = try await load(fetch, reload: false).value
    } catch .notFound {
      return nil
    }
    facts.learn(owner + "/" + repo, isPublic: visibility.isPublic, until: state.now() + historyTTL)
    return visibility.isPublic
  }

  /// The refusal of a non-public repository's history to an anonymous reader, counted and logged.
  private func withheldHistory() async -> GitHubError {
    await state.withhold(1, .history)
    return .notFound
  }

  /// Leaves the non-public items out of a page for an anonymous reader, and lowers the total by as
  /// many (GitHub counted them); the count left out.
  @Sendable private static func screen(_ page: inout SearchPage) -> Int {
    let before = page.items.count
    page.items.removeAll { !$0.isPublic }
    let withheld = before - page.items.count
    page.totalCount = max(0, page.totalCount - withheld)
    return withheld
  }

  /// Whose answers `reader`'s calls get: their own when their token may see private repositories
  /// (or an answer showed it does), else everyone's (anonymous readers included: their answers hold
  /// public repositories only).
  public func owner(of reader: ReaderCredential?) -> AnswerOwner {
    guard let reader, facts.access(of: reader).maySeePrivate else { return .everyone }
    return .reader(reader.userID)
  }

  /// What the state needs of `reader`, with what their answers taught about their token.
  private func readerScope(_ reader: ReaderCredential?) -> ReaderScope? {
    reader.map { ReaderScope($0, access: facts.access(of: $0), redactor: redactor) }
  }

  /// Asks `GET /user` with the server's token and reads what its `X-OAuth-Scopes` says it may see:
  /// nil without a token, or when GitHub did not answer 200 (the token then still counts as one that
  /// may see private data). What it finds decides, from then on, whether anonymous readers' star
  /// histories need a visibility check.
  public func checkServerToken() async -> RepositoryAccess? {
    guard facts.serverAccess != nil, GitHubClient.isHTTPURL(apiBase) else { return nil }
    let response: ClientResponse
    do {
      var request = ClientRequest(url: apiBase + "/user", headers: apiHeaders)
      request.maxResponseBytes = 64 * 1024
      response = try await transport.execute(request)
    } catch {
      return nil
    }
    guard response.status.code == 200 else { return nil }
    let access = RepositoryAccess(scopesHeader: response.headers["x-oauth-scopes"])
    facts.setServerAccess(access)
    return access
  }

  /// Avatar bytes from the configured avatar host only (`/u/{id}?s={size}`, size clamped to
  /// 1…460). Only png, jpeg, gif and webp up to `maxAvatarBytes` are accepted; redirects are not
  /// followed (they fail as `.upstream`). No `Authorization` header is sent there.
  public func avatar(userID: Int, size: Int) async throws(GitHubError) -> Avatar {
    guard userID > 0 else { throw .invalidInput("avatar id must be a positive integer") }
    guard GitHubClient.isHTTPURL(avatarBase) else { throw .invalidInput("avatar base is not an http(s) URL") }
    let clamped = min(max(size, 1), GitHubClient.maxAvatarSize)
    let url = "\(avatarBase)/u/\(userID)?s=\(clamped)"
    let limit = maxAvatarBytes
    let text = self.text
    let fetch = Fetch(
      key: url, endpoint: .avatar, resource: nil,
      request: ClientRequest(url: url, headers: avatarHeaders, maxResponseBytes: limit), ttl: avatarTTL
    ) { body, headers throws(GitHubError) in
      try GitHubClient.checkedAvatar(body, headers: headers, limit: limit, text: text)
    }
    return try await load(fetch, reload: false).value
  }

  /// The user id of an avatar URL on the configured avatar host, or nil for any other URL.
  public func avatarUserID(fromURL url: String) -> Int? {
    let prefix = avatarBase + "/u/"
    guard url.hasPrefix(prefix) else { return nil }
    let rest = url.dropFirst(prefix.count)
    let digits = rest.prefix { $0 != "?" }
    guard (1...18).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      let id = Int(digits), id > 0
    else { return nil }
    return id
  }

  /// The last known state of each rate-limit resource: the server token's, or with `reader` that
  /// reader's own (empty until an answer to one of their calls told it).
  public func rateLimitSnapshots(for reader: ReaderCredential? = nil) async -> [RateLimitSnapshot] {
    await state.snapshots(readerID: reader?.userID)
  }

  /// Whether the server's token may see private repositories: its scopes include `repo`, it has no
  /// scopes header, it has not been checked (`checkServerToken`), or an answer showed it does.
  public var serverTokenMaySeePrivate: Bool { facts.serverMaySeePrivate }

  /// Upstream calls by endpoint and status, and cache counters.
  public func metrics() async -> GitHubMetrics { await state.metrics() }

  // MARK: - Helpers

  /// The one load every endpoint goes through: the state's cache, coalescing, rate limits and
  /// shared tier, then the value as its own type. Each key is one endpoint's URL, so the cast holds
  /// unless a key were ever reused for another kind.
  private func load<Value>(_ fetch: Fetch<Value>, reload: Bool) async throws(GitHubError)
    -> (value: Value, stale: Bool)
  {
    // A fresh hit is read in place; anything else goes through the actor (which checks
    // cancellation first, as this does).
    if !reload, let hit = try freshHit(fetch.key, as: Value.self) { return hit }
    let delivered = try await state.load(fetch, reload: reload).get()
    guard let value = delivered.payload as? Value else { throw .decoding("cached entry of another kind") }
    return (value, delivered.stale)
  }

  /// The value fresh in this process's cache under `key`, read in place (nil when there is none, or
  /// once the task is cancelled).
  private func freshHit<Value>(_ key: String, as type: Value.Type) throws(GitHubError)
    -> (value: Value, stale: Bool)?
  {
    guard !Task.isCancelled, let hit = state.freshHit(key) else { return nil }
    guard let value = hit.payload as? Value else { throw .decoding("cached entry of another kind") }
    return (value, hit.stale)
  }

  /// The API headers with the reader's token instead of the server's.
  private func readerHeaders(_ reader: ReaderCredential) -> HTTPHeaders {
    var headers = avatarHeaders
    headers.add(name: "Authorization", value: "Bearer \(GitHubClient.headerSafe(reader.token))")
    return headers
  }

  /// The search URL; the parameter order is fixed so equal queries share a cache key.
  func searchURL(_ query: SearchQuery, page: Int, perPage: Int) throws(GitHubError) -> String {
    guard GitHubClient.isHTTPURL(apiBase) else { throw .invalidInput("API base is not an http(s) URL") }
    let text = String(query.text.trimmingWhitespace)
    guard !text.isEmpty else { throw .invalidInput("the search text is empty") }
    // Counting characters walks grapheme clusters; 256 bytes or fewer are 256 characters or fewer.
    guard text.utf8.count <= 256 || text.count <= 256 else {
      throw .invalidInput("the search text is longer than 256 characters")
    }
    // This is the cache key of every search page, cached or not, so it is written into one string
    // (the same text `URLEncoding.formatQuery` gives for these items).
    var url = apiBase
    url.reserveCapacity(apiBase.utf8.count + text.utf8.count * 3 + 80)
    url += "/search/repositories?q="
    url += URLEncoding.percentEncode(text)
    if let sort = query.sort {
      url += "&sort="
      url += URLEncoding.percentEncode(sort.rawValue)
      url += "&order="
      url += URLEncoding.percentEncode(query.order.rawValue)
    }
    url += "&per_page="
    url += String(perPage)
    url += "&page="
    url += String(page)
    return url
  }

  private func repoURL(owner: String, repo: String, suffix: String) throws(GitHubError) -> String {
    guard isValidOwnerName(owner) else { throw .invalidInput("invalid owner name") }
    guard isValidRepoName(repo) else { throw .invalidInput("invalid repository name") }
    guard GitHubClient.isHTTPURL(apiBase) else { throw .invalidInput("API base is not an http(s) URL") }
    return "\(apiBase)/repos/\(owner)/\(repo)\(suffix)"
  }

  /// The avatar if its type and size are acceptable; its ETag (passed on to browsers) is cleaned like
  /// any upstream text, because a hostile API host serving avatars could echo the token in it.
  static func checkedAvatar(
    _ body: [UInt8], headers: HTTPHeaders, limit: Int, text: UpstreamText = .tokenless
  ) throws(GitHubError) -> Avatar {
    let raw = headers["content-type"] ?? ""
    let type = raw.split(separator: ";", maxSplits: 1).first.map { String($0).lowercased() } ?? ""
    let mediaType = String(type.trimmingWhitespace)
    guard ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(mediaType) else {
      throw .decoding("avatar content type \"\(mediaType.prefix(64))\" is not an accepted image type")
    }
    guard body.count <= limit else { throw .decoding("avatar larger than \(limit) bytes") }
    guard !body.isEmpty else { throw .decoding("empty avatar") }
    return Avatar(bytes: body, contentType: mediaType, etag: text.clean(headers["etag"]))
  }

  private static func trimmedBase(_ base: String) -> String {
    var result = String(base.trimmingWhitespace)
    while result.hasSuffix("/") { result.removeLast() }
    return result
  }

  private static func isHTTPURL(_ base: String) -> Bool {
    // Past an ASCII prefix, one more byte means one more character.
    (base.hasPrefix("https://") && base.utf8.count > 8) || (base.hasPrefix("http://") && base.utf8.count > 7)
  }

  /// Drops control characters so configuration cannot inject header lines.
  static func headerSafe(_ value: String) -> String {
    String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
  }
}
