import HTTP

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Decodes GitHub response bodies into the public models. Unknown fields are ignored and the
/// nullable or late-added fields (description, language, license, owner, topics, homepage,
/// archived, incomplete_results) are optional.
///
/// Upstream is not trusted: bodies are mended first (`JSONRepair`), numbers are clamped
/// (`UpstreamNumber`), every string is cleaned (`UpstreamText`), and a malformed item or week is
/// skipped and counted rather than failing its page. Only an unusable envelope fails.
enum ResponseDecoding {
  static func searchPage(
    _ body: [UInt8], headers: HTTPHeaders, page: Int, perPage: Int, text: UpstreamText = .tokenless
  ) throws(GitHubError) -> SearchPage {
    let dto = try decode(SearchResponseDTO.self, body)
    var items: [Repository] = []
    items.reserveCapacity(dto.items.count)
    var skipped = Skipped()
    for (index, element) in dto.items.enumerated() {
      switch element.result {
      case .success(let item): items.append(item.model(text))
      case .failure(let problem): skipped.note("item \(index): \(problem)")
      }
    }
    var result = SearchPage(
      totalCount: dto.totalCount, incompleteResults: dto.incompleteResults, items: items,
      links: headers["link"].map(LinkHeader.parse) ?? [:], page: page, perPage: perPage)
    result.skipped = skipped
    return result
  }

  static func starHistory(_ body: [UInt8], text: UpstreamText = .tokenless) throws(GitHubError) -> StarHistory
  {
    let weeks = try decode([Lossy<StarWeekDTO>].self, body)
    var result: [StarWeek] = []
    result.reserveCapacity(weeks.count)
    var skipped = Skipped()
    for (index, element) in weeks.enumerated() {
      switch element.result {
      case .success(let week) where week.days.count == 7:
        result.append(StarWeek(weekStart: week.week, total: week.total, days: week.days))
      case .success(let week):
        skipped.note("week \(index) has \(week.days.count) days, expected 7")
      case .failure(let problem):
        skipped.note("week \(index): \(problem)")
      }
    }
    // GitHub documents newest first; sorting guards the card against a misordered page.
    if !zip(result, result.dropFirst()).allSatisfy({ $0.weekStart >= $1.weekStart }) {
      result.sort { $0.weekStart > $1.weekStart }
    }
    var history = StarHistory(weeks: result)
    history.skipped = skipped
    return history
  }

  /// The visibility in a `GET /repos/{owner}/{repo}` answer: public only when it says so.
  static func repositoryVisibility(_ body: [UInt8]) throws(GitHubError) -> RepositoryVisibility {
    RepositoryVisibility(isPublic: try decode(VisibilityDTO.self, body).isPublic)
  }

  /// Public only when GitHub said so: `private: false` with no other visibility, or
  /// `visibility: "public"` without `private: true`. Missing, `internal` or unknown: not public.
  static func isPublic(private isPrivate: Bool?, visibility: String?) -> Bool {
    let visible = visibility.map { $0.lowercased() == "public" }
    switch (isPrivate, visible) {
    case (false, nil), (false, true), (nil, true): return true
    default: return false
    }
  }

  /// GitHub's error `message`, or the start of a non-JSON body: cleaned and redacted before it is
  /// cut to 300 characters, so no cut can leave part of the token.
  static func errorMessage(_ body: [UInt8], text: UpstreamText = .tokenless) -> String {
    let mended = JSONRepair.repaired(body)
    if let dto = try? JSONDecoder().decode(ErrorDTO.self, from: Data(mended)), let message = dto.message {
      return String(text.clean(message).prefix(300))
    }
    let plain = String(decoding: text.redactor.redact(mended), as: UTF8.self)
    return String(text.clean(plain).prefix(300))
  }

  private static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(GitHubError) -> T {
    do {
      return try JSONDecoder().decode(T.self, from: Data(JSONRepair.repaired(body)))
    } catch let error as DecodingError {
      throw .decoding(describe(error))
    } catch {
      throw .decoding("invalid JSON")
    }
  }

  static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
      return parts.isEmpty ? "top level" : parts.joined()
    }
    switch error {
    case .keyNotFound(let key, let context): return "missing \(key.stringValue) at \(path(context))"
    case .valueNotFound(_, let context): return "null value at \(path(context))"
    case .typeMismatch(_, let context): return "wrong type at \(path(context))"
    case .dataCorrupted(let context): return "invalid JSON at \(path(context))"
    @unknown default: return "invalid JSON"
    }
  }
}

/// Malformed values skipped while decoding one response: how many, and the first reason (for the log).
struct Skipped: Sendable, Equatable {
  var count = 0
  var first: String?

  mutating func note(_ reason: String) {
    if count == 0 { first = reason }
    count += 1
  }
}

/// An element decoded on its own, so one bad element fails only itself.
private struct Lossy<T: Decodable>: Decodable {
  let result: Result<T, Problem>

  struct Problem: Error, CustomStringConvertible {
    let description: String
  }

  init(from decoder: any Decoder) throws {
    do {
      result = .success(try T(from: decoder))
    } catch let error as DecodingError {
      result = .failure(Problem(description: ResponseDecoding.describe(error)))
    } catch {
      result = .failure(Problem(description: "invalid value"))
    }
  }
}

private struct SearchResponseDTO: Decodable {
  let totalCount: Int
  let incompleteResults: Bool
  let items: [Lossy<RepositoryDTO>]
  enum CodingKeys: String, CodingKey {
    case totalCount = "total_count", incompleteResults = "incomplete_results", items
  }
  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    totalCount = try c.decodeClamped(.totalCount)
    incompleteResults = (try? c.decodeIfPresent(Bool.self, forKey: .incompleteResults)) == true
    items = try c.decode([Lossy<RepositoryDTO>].self, forKey: .items)
  }
}

private struct OwnerDTO: Decodable {
  let login: String
  let id: Int
  let avatarURL: String?
  let htmlURL: String?
  let type: String?
  enum CodingKeys: String, CodingKey {
    case login, id, avatarURL = "avatar_url", htmlURL = "html_url", type
  }
  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    login = try c.decode(String.self, forKey: .login)
    id = try c.decodeID(.id)
    avatarURL = try c.decodeIfPresent(String.self, forKey: .avatarURL)
    htmlURL = try c.decodeIfPresent(String.self, forKey: .htmlURL)
    type = try c.decodeIfPresent(String.self, forKey: .type)
  }
  func model(_ text: UpstreamText) -> RepositoryOwner {
    let login = text.clean(login)
    return RepositoryOwner(
      login: login, id: id, avatarURL: text.clean(avatarURL) ?? "",
      htmlURL: text.clean(htmlURL) ?? "https://github.com/\(login)", type: text.clean(type) ?? "User")
  }
}

private struct LicenseDTO: Decodable {
  let spdxID: String?
  let name: String?
  enum CodingKeys: String, CodingKey { case spdxID = "spdx_id", name }
  /// GitHub uses `NOASSERTION` for licenses it cannot identify; the name says more then.
  var label: String? {
    if let spdxID, !spdxID.isEmpty, spdxID != "NOASSERTION" { return spdxID }
    return name
  }
}

private struct RepositoryDTO: Decodable {
  let id: Int
  let name: String
  let fullName: String
  let owner: OwnerDTO?
  let htmlURL: String
  let description: String?
  let fork: Bool?
  let language: String?
  let stargazersCount: Int
  let forksCount: Int
  let openIssuesCount: Int
  let topics: [String]?
  let license: LicenseDTO?
  let createdAt: String
  let updatedAt: String
  let pushedAt: String?
  let homepage: String?
  let archived: Bool?
  let isTemplate: Bool?
  /// `private` and `visibility` as sent; a value of the wrong type counts as absent (not public).
  let isPrivate: Bool?
  let visibility: String?

  enum CodingKeys: String, CodingKey {
    case id, name, fullName = "full_name", owner, htmlURL = "html_url", description, fork, language
    case stargazersCount = "stargazers_count", forksCount = "forks_count"
    case openIssuesCount = "open_issues_count", topics, license, createdAt = "created_at"
    case updatedAt = "updated_at", pushedAt = "pushed_at", homepage, archived, isTemplate = "is_template"
    case isPrivate = "private", visibility
  }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decodeID(.id)
    name = try c.decode(String.self, forKey: .name)
    fullName = try c.decode(String.self, forKey: .fullName)
    owner = try c.decodeIfPresent(OwnerDTO.self, forKey: .owner)
    htmlURL = try c.decode(String.self, forKey: .htmlURL)
    description = try c.decodeIfPresent(String.self, forKey: .description)
    fork = try c.decodeIfPresent(Bool.self, forKey: .fork)
    language = try c.decodeIfPresent(String.self, forKey: .language)
    stargazersCount = try c.decodeClamped(.stargazersCount)
    forksCount = try c.decodeClamped(.forksCount)
    openIssuesCount = try c.decodeClamped(.openIssuesCount)
    topics = try c.decodeIfPresent([String].self, forKey: .topics)
    license = try c.decodeIfPresent(LicenseDTO.self, forKey: .license)
    createdAt = try c.decode(String.self, forKey: .createdAt)
    updatedAt = try c.decode(String.self, forKey: .updatedAt)
    pushedAt = try c.decodeIfPresent(String.self, forKey: .pushedAt)
    homepage = try c.decodeIfPresent(String.self, forKey: .homepage)
    archived = try c.decodeIfPresent(Bool.self, forKey: .archived)
    isTemplate = try c.decodeIfPresent(Bool.self, forKey: .isTemplate)
    isPrivate = try? c.decodeIfPresent(Bool.self, forKey: .isPrivate)
    visibility = try? c.decodeIfPresent(String.self, forKey: .visibility)
  }

  var isPublic: Bool { ResponseDecoding.isPublic(private: isPrivate, visibility: visibility) }

  /// The model, through `Repository`'s plain `init`: `DoubleFieldsTests` fails on a declared field
  /// this does not give (the `init` gives every field a value, absent ones their default).
  func model(_ text: UpstreamText) -> Repository {
    Repository(
      id: id, name: text.clean(name), fullName: text.clean(fullName), owner: owner?.model(text),
      htmlURL: text.clean(htmlURL), description: text.clean(description), fork: fork ?? false,
      language: text.clean(language), stargazersCount: stargazersCount, forksCount: forksCount,
      openIssuesCount: openIssuesCount, topics: (topics ?? []).map(text.clean),
      license: text.clean(license?.label),
      createdAt: text.clean(createdAt), updatedAt: text.clean(updatedAt), pushedAt: text.clean(pushedAt),
      homepage: text.clean(homepage), archived: archived ?? false,
      isTemplate: isTemplate ?? false, isPublic: isPublic)
  }
}

private struct StarWeekDTO: Decodable {
  let week: Int
  let total: Int
  let days: [Int]
  enum CodingKeys: String, CodingKey { case week, total, days }
  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    week = try c.decodeClamped(.week, upper: UpstreamNumber.maxTime)
    total = try c.decodeClamped(.total)
    var list = try c.nestedUnkeyedContainer(forKey: .days)
    var days: [Int] = []
    // Only the length matters beyond 7; a hostile list is not read to its end.
    while !list.isAtEnd && days.count <= 7 { days.append(try list.decodeCount()) }
    if !list.isAtEnd { days.append(0) }
    self.days = days
  }
}

/// The two fields of a repository that say who may see it; a value of the wrong type counts as absent.
private struct VisibilityDTO: Decodable {
  let isPrivate: Bool?
  let visibility: String?
  enum CodingKeys: String, CodingKey { case isPrivate = "private", visibility }
  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    isPrivate = try? c.decodeIfPresent(Bool.self, forKey: .isPrivate)
    visibility = try? c.decodeIfPresent(String.self, forKey: .visibility)
  }
  var isPublic: Bool { ResponseDecoding.isPublic(private: isPrivate, visibility: visibility) }
}

private struct ErrorDTO: Decodable {
  let message: String?
}
