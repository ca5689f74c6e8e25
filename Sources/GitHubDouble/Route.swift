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
  /// `GET /user`.
  case user
  /// `GET` (the form) and `POST` (the decision) `/login/oauth/authorize`.
  case authorize
  /// `POST /login/oauth/access_token` exchanging a code.
  case accessToken
  /// `POST /login/oauth/access_token` with `grant_type=refresh_token`.
  case refreshToken
  /// `DELETE /applications/{client_id}/token`.
  case revokeToken(String)
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
    case .user: .user
    case .authorize, .accessToken: .oauth
    case .refreshToken: .tokenRefresh
    case .revokeToken: .revokeToken
    case .notFound: .other
    }
  }

  /// The rate-limit resource the endpoint spends, if any.
  var resource: DoubleResource? {
    switch self {
    case .search: .search
    case .history, .count, .repository, .userRepos, .user, .notFound: .core
    case .avatar, .rateLimit, .authorize, .accessToken, .refreshToken, .revokeToken: nil
    }
  }

  /// The methods the endpoint answers (GET also answers HEAD).
  var methods: [HTTPMethod] {
    switch self {
    case .authorize: [.get, .post]
    case .accessToken, .refreshToken: [.post]
    case .revokeToken: [.delete]
    default: [.get]
    }
  }

  /// The OAuth web flow and app endpoints, which take no bearer token and no hostile mode.
  var isOAuthApp: Bool {
    switch self {
    case .authorize, .accessToken, .refreshToken, .revokeToken: true
    default: false
    }
  }
}
