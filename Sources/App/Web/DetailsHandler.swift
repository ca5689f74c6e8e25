import Credentials
import Encodings
import GitHub
import HTTP
import HTTPServer
import Mustache

/// What a card loads on its own: `GET /fragments/stars/{owner}/{repo}` (one star history),
/// `GET /fragments/stars?r=…` (several) and `GET /avatars/{id}` (the owner's avatar).
struct DetailsHandler: Sendable {
  let client: GitHubClient
  let warming: Warming
  let readerLookup: ReaderLookup
  /// Unix seconds now.
  let now: @Sendable () -> Int
  let starsTemplate: TemplateRef
  let starsBatchTemplate: TemplateRef

  /// Avatar sizes accepted (GitHub serves up to 460).
  static let avatarSizes = 16...GitHubClient.maxAvatarSize
  /// Browsers keep avatars a week; the ETag revalidates after that.
  static let avatarCacheControl = "max-age=604800"

  /// `GET /fragments/stars/{owner}/{repo}`: the card's star history, rendered here.
  func stars(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    guard let owner = context.parameters["owner"], let repo = context.parameters["repo"],
      isValidOwnerName(owner), isValidRepoName(repo)
    else {
      return HTTPError(.notFound, "no such repository").response
    }
    if request.headers["Sec-Fetch-Mode"] == "navigate" {
      let location = "/?" + URLEncoding.formatQuery([("q", "repo:\(owner)/\(repo)")])
      return HTTPResponse(status: .seeOther, headers: ["Location": location, "Cache-Control": "no-cache"])
    }
    var reader = await readerLookup.reader(request)
    let revocation = reader.revocation
    await warming.historyRequested(owner: owner, repo: repo, as: reader.credential)
    let view: StarsView
    do {
      view = .loaded(
        try await history(owner: owner, repo: repo, as: reader.credential, revocation: revocation))
    } catch {
      view = StarsView.failure(error, now: now())
    }
    if revocation.happened { await readerLookup.tokenRevoked(&reader) }
    var body: [UInt8] = []
    body.reserveCapacity(2048)
    do {
      try starsTemplate.render(view.mustacheValue, into: &body)
    } catch {
      return HTTPResponse.text(.internalServerError, "internal server error")
    }
    return PageRenderer.personal(SecurityHeaders.htmlResponse(.ok, .bytes(body)), reader)
  }

  /// A star history read as `reader` on their own budget; when GitHub refuses their token, it is
  /// renewed, or read anonymously instead and `revocation` is told, so that the route ends the session.
  func history(owner: String, repo: String, as reader: ReaderCredential?, revocation: Revocation)
    async throws(GitHubError) -> StarHistory
  {
    func read(as credential: ReaderCredential?) async throws(GitHubError) -> StarHistory {
      try await client.starHistory(owner: owner, repo: repo, perPage: StarsView.maxWeeks, as: credential)
    }
    guard let reader else { return try await read(as: nil) }
    return try await revocation.run(as: reader, read)
  }

  /// Most histories one batched request may ask for.
  static let maxBatchedHistories = 20

  /// `GET /fragments/stars?r=owner/repo&r=…`: up to `maxBatchedHistories` cards' histories in one
  /// answer, fetched upstream concurrently, so the browser spends one of its six connections on several
  /// cards. Each history is what `/fragments/stars/{owner}/{repo}` answers, in a `<template data-for>`.
  func starsBatch(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    let names = request.queryItems.filter { $0.name == "r" }.map(\.value)
    guard (1...Self.maxBatchedHistories).contains(names.count) else {
      return HTTPError(.badRequest, "r must name 1 to \(Self.maxBatchedHistories) repositories as owner/repo")
        .response
    }
    var repositories: [(owner: String, repo: String)] = []
    for name in names {
      let parts = name.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, isValidOwnerName(String(parts[0])), isValidRepoName(String(parts[1])) else {
        return HTTPError(.badRequest, "r must name repositories as owner/repo").response
      }
      repositories.append((String(parts[0]), String(parts[1])))
    }
    var reader = await readerLookup.reader(request)
    let credential = reader.credential
    let revocation = reader.revocation
    // The browser lists the nearest cards first, so the last one is the furthest ahead.
    if let last = repositories.last {
      await warming.historyRequested(owner: last.owner, repo: last.repo, as: credential)
    }
    let asOf = now()
    let views = await withTaskGroup(of: (Int, StarsView).self) { group in
      for (index, repository) in repositories.enumerated() {
        group.addTask { [self] in
          do throws(GitHubError) {
            let history = try await history(
              owner: repository.owner, repo: repository.repo, as: credential, revocation: revocation)
            return (index, .loaded(history))
          } catch {
            return (index, StarsView.failure(error, now: asOf))
          }
        }
      }
      var views: [StarsView?] = Array(repeating: nil, count: repositories.count)
      for await (index, view) in group { views[index] = view }
      return views
    }
    if revocation.happened { await readerLookup.tokenRevoked(&reader) }
    let histories: [MustacheValue] = zip(repositories, views).map { repository, view in
      .object([
        "name": .string(repository.owner + "/" + repository.repo),
        "view": view?.mustacheValue ?? .null,
      ])
    }
    var body: [UInt8] = []
    body.reserveCapacity(1024 * repositories.count)
    do {
      try starsBatchTemplate.render(.object(["histories": .list(histories)]), into: &body)
    } catch {
      return HTTPResponse.text(.internalServerError, "internal server error")
    }
    return PageRenderer.personal(SecurityHeaders.htmlResponse(.ok, .bytes(body)), reader)
  }

  /// `GET /avatars/{id}?s=N`: the owner's avatar from the configured avatar host only, with long
  /// browser caching. The id must be digits; the size is clamped.
  func avatar(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    guard let text = context.parameters["id"], (1...18).contains(text.utf8.count),
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let id = Int(text), id > 0
    else {
      return HTTPError(.notFound, "no such avatar").response
    }
    let requested = request.queryValue("s").flatMap { Int($0) } ?? 80
    let size = min(max(requested, Self.avatarSizes.lowerBound), Self.avatarSizes.upperBound)
    let avatar: Avatar
    do {
      avatar = try await client.avatar(userID: id, size: size)
    } catch {
      // The card shows the owner's initials under a transparent placeholder, and the console stays
      // free of failed-image errors; no-cache lets the real avatar replace it on the next page view.
      return HTTPResponse(
        status: .ok,
        headers: ["Content-Type": "image/svg+xml", "Cache-Control": "no-cache", "X-Avatar": "placeholder"],
        body: .bytes(Self.placeholderAvatar))
    }
    // A revalidation that names this tag becomes a 304 in the pipeline (`Validators`).
    let headers: HTTPHeaders = [
      "Content-Type": avatar.contentType, "Cache-Control": Self.avatarCacheControl,
      "ETag": Self.strongETag(avatar),
    ]
    return HTTPResponse(status: .ok, headers: headers, body: .bytes(avatar.bytes))
  }

  /// A transparent 1×1 image, served when the avatar host fails: the initials behind it stay visible,
  /// and details.js, seeing an image of 1 px, marks the avatar as failed.
  static let placeholderAvatar = Array(
    #"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" viewBox="0 0 1 1"/>"#.utf8)

  /// The upstream ETag when it is a plain quoted one, else the server's entity tag of the bytes.
  static func strongETag(_ avatar: Avatar) -> String {
    if let etag = avatar.etag, etag.hasPrefix("\""), etag.hasSuffix("\""), etag.count <= 80,
      etag.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    {
      return etag
    }
    return ContentNegotiation.entityTag(for: avatar.bytes)
  }
}
