/// The organisation where the double's GitHub App is installed, as GitHub models an installation: the
/// organisation owns private repositories, and every member's GitHub App user token sees them (as
/// far as the user may: a member sees them, a non-member does not). OAuth tokens with `repo` see them
/// too when their user is a member, as on GitHub.
///
/// ```swift
/// var configuration = DoubleConfiguration()
/// configuration.installation.members = ["mona"]
/// configuration.installation.privateRepositories = 4
/// let double = GitHubDouble(configuration: configuration, time: .system)
/// double.catalog.installedOrganisation?.login  // the organisation's login
/// ```
public struct AppInstallation: Sendable, Equatable {
  /// Private repositories the organisation owns (0: no installation). Each is named
  /// `vault-<noun>`, carries the topics `private-fixture` and `installed-app`, and says in its
  /// description that only members see it.
  public var privateRepositories = 4
  /// Logins of the organisation's members (any case). A login outside the catalog signs in as a
  /// user of its own, so tests can name members freely.
  public var members = ["mona", "octo-member"]

  /// The defaults above.
  public init() {}

  /// Whether `login` is a member (logins compare without case, as on GitHub).
  func isMember(_ login: String) -> Bool {
    let lowered = login.lowercased()
    return members.contains { $0.lowercased() == lowered }
  }
}

/// What the server's token (one the double did not issue) is, for the server-token checks.
public enum ServerTokenAccess: String, Sendable, CaseIterable {
  /// A token with public access only: `X-OAuth-Scopes` is sent, empty (the default).
  case publicOnly = "public"
  /// A classic token with the `repo` scope: `X-OAuth-Scopes: repo`, and it sees the installed
  /// organisation's private repositories.
  case repo
  /// A fine-grained personal token: no `X-OAuth-Scopes` header, and it sees the installed
  /// organisation's private repositories.
  case fineGrained = "fine-grained"

  /// The `X-OAuth-Scopes` value to send, nil for none.
  var scopesHeader: String? {
    switch self {
    case .publicOnly: ""
    case .repo: "repo"
    case .fineGrained: nil
    }
  }

  /// Whether the token sees the installed organisation's private repositories.
  var seesInstallation: Bool { self != .publicOnly }
}

/// Whose private repositories a request may see: one catalog user's own (an OAuth token with
/// `repo`), and the installed organisation's (a member's App token or `repo` token, or the server's
/// token when configured so). Everyone sees the public repositories.
struct DoubleViewer: Sendable, Hashable, CustomStringConvertible {
  /// The catalog owner whose own private repositories are visible.
  var owner: Int?
  /// Whether the installed organisation's private repositories are visible.
  var installation = false

  /// Public repositories only.
  static let everyone = DoubleViewer()

  /// Whether any private repository may be visible.
  var seesPrivate: Bool { owner != nil || installation }

  /// A short form for cache keys: `-` for everyone.
  var description: String {
    seesPrivate ? "\(owner.map(String.init) ?? "")+\(installation ? "org" : "")" : "-"
  }
}
