import HTTP

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Decodes GitHub response bodies into the public models. Unknown fields are ignored and the
/// nullable or late-added fields (description, language, license, owner, topics, homepage,
/// archived, incomplete_results) are optional.
enum ResponseDecoding {
  static func searchPage(_ body: [UInt8], headers: HTTPHeaders, page: Int, perPage: Int) throws(GitHubError)
    -> SearchPage
  {
    let dto = try decode(SearchResponseDTO.self, body)
    return SearchPage(
      totalCount: dto.totalCount, incompleteResults: dto.incompleteResults ?? false,
      items: dto.items.map(\.model), links: headers["link"].map(LinkHeader.parse) ?? [:], page: page,
      perPage: perPage)
  }

  static func starHistory(_ body: [UInt8]) throws(GitHubError) -> StarHistory {
    let weeks = try decode([StarWeekDTO].self, body)
    var result: [StarWeek] = []
    result.reserveCapacity(weeks.count)
    for week in weeks {
      guard week.days.count == 7 else {
        throw .decoding("star history week \(week.week) has \(week.days.count) days, expected 7")
      }
      result.append(StarWeek(weekStart: week.week, total: week.total, days: week.days))
    }
    // GitHub documents newest first; sorting guards the card against a misordered page.
    if !zip(result, result.dropFirst()).allSatisfy({ $0.weekStart >= $1.weekStart }) {
      result.sort { $0.weekStart > $1.weekStart }
    }
    return StarHistory(weeks: result)
  }

  static func stargazerCount(_ body: [UInt8]) throws(GitHubError) -> Int {
    let dto = try decode(CountDTO.self, body)
    guard dto.count >= 0 else { throw .decoding("negative stargazer count") }
    return dto.count
  }

  /// The classic stargazers list, in either media type (plain users or `{starred_at, user}`).
  static func stargazers(_ body: [UInt8]) throws(GitHubError) -> [Stargazer] {
    try decode([StargazerDTO].self, body).map(\.model)
  }

  /// GitHub's error `message`, or the start of a non-JSON body.
  static func errorMessage(_ body: [UInt8]) -> String {
    if let dto = try? JSONDecoder().decode(ErrorDTO.self, from: Data(body)), let message = dto.message {
      return String(message.prefix(300))
    }
    return String(decoding: body.prefix(300), as: UTF8.self)
  }

  private static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(GitHubError) -> T {
    do {
      return try JSONDecoder().decode(T.self, from: Data(body))
    } catch let error as DecodingError {
      throw .decoding(describe(error))
    } catch {
      throw .decoding("invalid JSON")
    }
  }

  private static func describe(_ error: DecodingError) -> String {
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

private struct SearchResponseDTO: Decodable {
  let totalCount: Int
  let incompleteResults: Bool?
  let items: [RepositoryDTO]
  enum CodingKeys: String, CodingKey {
    case totalCount = "total_count", incompleteResults = "incomplete_results", items
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
  var model: RepositoryOwner {
    RepositoryOwner(
      login: login, id: id, avatarURL: avatarURL ?? "", htmlURL: htmlURL ?? "https://github.com/\(login)",
      type: type ?? "User")
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

  enum CodingKeys: String, CodingKey {
    case id, name, fullName = "full_name", owner, htmlURL = "html_url", description, fork, language
    case stargazersCount = "stargazers_count", forksCount = "forks_count"
    case openIssuesCount = "open_issues_count", topics, license, createdAt = "created_at"
    case updatedAt = "updated_at", pushedAt = "pushed_at", homepage, archived
  }

  var model: Repository {
    Repository(
      id: id, name: name, fullName: fullName, owner: owner?.model, htmlURL: htmlURL, description: description,
      fork: fork ?? false, language: language, stargazersCount: stargazersCount, forksCount: forksCount,
      openIssuesCount: openIssuesCount, topics: topics ?? [], license: license?.label, createdAt: createdAt,
      updatedAt: updatedAt, pushedAt: pushedAt, homepage: homepage?.isEmpty == false ? homepage : nil,
      archived: archived ?? false)
  }
}

private struct StarWeekDTO: Decodable {
  let week: Int
  let total: Int
  let days: [Int]
}

private struct CountDTO: Decodable {
  let count: Int
}

private struct ErrorDTO: Decodable {
  let message: String?
}

private struct StargazerDTO: Decodable {
  let model: Stargazer

  private enum Keys: String, CodingKey { case starredAt = "starred_at", user }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    if container.contains(.user) {
      let user = try container.decode(OwnerDTO.self, forKey: .user)
      let starredAt = try container.decodeIfPresent(String.self, forKey: .starredAt)
      model = Stargazer(login: user.login, id: user.id, avatarURL: user.avatarURL ?? "", starredAt: starredAt)
    } else {
      let user = try OwnerDTO(from: decoder)
      model = Stargazer(login: user.login, id: user.id, avatarURL: user.avatarURL ?? "", starredAt: nil)
    }
  }
}
