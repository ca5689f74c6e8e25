import Credentials

extension RepositoryAccess {
  /// From the `X-OAuth-Scopes` header's value; nil (no header) is `.unknown`.
  public init(scopesHeader: String?) {
    guard let scopesHeader else {
      self = .unknown
      return
    }
    self.init(scopes: GitHubOAuth.scopes(fromHeader: scopesHeader))
  }
}
