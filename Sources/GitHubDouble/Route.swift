import HTTP

/// One of the double's GitHub endpoints, with its decoded path parameters.
enum Route: Equatable {
  case search
  case history(String, String)
  case count(String, String)
  case repository(String, String)
  case userRepos(String)
  case avatar(String)
  case rateLimit
  case notFound

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
