/// A signed-in reader's GitHub identity: calls made with it go out with the reader's token and are
/// counted on the reader's own rate-limit ledger. Its description and mirror never show the token.
///
/// ```swift
/// let reader = ReaderCredential(login: user.login, userID: user.id, token: grant.accessToken,
///                               seesPrivate: GitHubOAuth.seesPrivate(scopes: user.scopes))
/// let page = try await client.searchRepositories(query, page: 1, as: reader)
/// ```
public struct ReaderCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The GitHub login, as `/user` returned it.
  public var login: String
  /// The GitHub numeric user id; it names the reader's ledger (`reader:<id>`) and, when the reader
  /// sees private repositories, their own cache entries.
  public var userID: Int
  /// The OAuth access token; never logged, rendered or in a description.
  public var token: String
  /// Whether the token's scopes (`X-OAuth-Scopes`) grant private repositories (`repo`).
  public var seesPrivate: Bool

  /// A credential from its parts.
  public init(login: String, userID: Int, token: String, seesPrivate: Bool) {
    self.login = login
    self.userID = userID
    self.token = token
    self.seesPrivate = seesPrivate
  }

  /// `ReaderCredential(login: …, userID: …, token: [redacted], seesPrivate: …)`.
  public var description: String {
    "ReaderCredential(login: \(login), userID: \(userID), token: [redacted], seesPrivate: \(seesPrivate))"
  }

  /// Same as `description`, so `debugPrint` cannot leak the token either.
  public var debugDescription: String { description }

  /// A mirror without the token, so `dump` cannot leak it.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: ["login": login, "userID": userID, "token": "[redacted]", "seesPrivate": seesPrivate])
  }

  /// The reader's name in ledgers and scoped keys: `reader:<id>`.
  var ledgerName: String { "reader:\(userID)" }
}
