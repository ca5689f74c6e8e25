import HTTP

/// A request path matched to one of the double's GitHub endpoints, with decoded parameters.
enum Route: Equatable {
  case search
  case history(String, String)
  case count(String, String)
  case repository(String, String)
  case userRepos(String)
  case avatar(String)
  case rateLimit
  case notFound

  init(path: Substring) {
    let parts = path.split(separator: "/", omittingEmptySubsequences: true).map {
      URLEncoding.percentDecode($0) ?? String($0)
    }
    switch parts.count {
    case 1 where parts[0] == "rate_limit": self = .rateLimit
    case 2 where parts[0] == "search" && parts[1] == "repositories": self = .search
    case 2 where parts[0] == "u": self = .avatar(parts[1])
    case 3 where parts[0] == "repos": self = .repository(parts[1], parts[2])
    case 3 where parts[0] == "users" && parts[2] == "repos": self = .userRepos(parts[1])
    case 5 where parts[0] == "repos" && parts[3] == "stargazers" && parts[4] == "history":
      self = .history(parts[1], parts[2])
    case 5 where parts[0] == "repos" && parts[3] == "stargazers" && parts[4] == "count":
      self = .count(parts[1], parts[2])
    default: self = .notFound
    }
  }

  var endpoint: DoubleEndpoint {
    switch self {
    case .search: .search
    case .history: .history
    case .count: .count
    case .repository: .repository
    case .userRepos: .userRepos
    case .avatar: .avatar
    case .rateLimit: .rateLimit
    case .notFound: .other
    }
  }

  /// The rate-limit resource the endpoint spends, if any.
  var resource: DoubleResource? {
    switch self {
    case .search: .search
    case .history, .count, .repository, .userRepos, .notFound: .core
    case .avatar, .rateLimit: nil
    }
  }
}
