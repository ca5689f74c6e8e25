/// What a token may see, as far as GitHub's answers tell: the three cases its `X-OAuth-Scopes`
/// header can state. Whether a given answer is private is decided by its items, whatever this says;
/// this only decides whether a caller's answers may be shared before they are read.
///
/// ```swift
/// let access = RepositoryAccess(scopesHeader: response.headers["x-oauth-scopes"])
/// if access.maySeePrivate { /* the answers are the caller's own until the items say otherwise */ }
/// ```
public enum RepositoryAccess: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The scopes are known and lack `repo` (an OAuth app token without `repo`, a classic token with
  /// `public_repo`): GitHub shows it public repositories only.
  case publicOnly = 0
  /// The scopes include `repo`: all private repositories the user may see.
  case repoScope = 1
  /// No scopes header at all: a GitHub App user token (`ghu_`) or a fine-grained personal token,
  /// which can see private repositories (an App's: where it is installed, as far as the user may).
  case unknown = 2

  /// From a known list of scopes: `.repoScope` with `repo`, else `.publicOnly`.
  public init(scopes: [String]) {
    self = scopes.contains("repo") ? .repoScope : .publicOnly
  }

  /// Whether answers fetched with the token may hold private repositories: then they are the
  /// caller's own until their items prove them public.
  public var maySeePrivate: Bool { self != .publicOnly }

  /// `publicOnly`, `repoScope` or `unknown`.
  public var description: String {
    switch self {
    case .publicOnly: "publicOnly"
    case .repoScope: "repoScope"
    case .unknown: "unknown"
    }
  }
}
