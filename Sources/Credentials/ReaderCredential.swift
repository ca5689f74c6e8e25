/// A signed-in reader's GitHub identity: calls made with it go out with the reader's token and are
/// counted on the reader's own rate-limit ledger. Its description and mirror never show the token.
///
/// ```swift
/// let reader = ReaderCredential(login: user.login, userID: user.id, token: grant.accessToken,
///                               access: user.access)
/// let page = try await client.searchRepositories(query, page: 1, as: reader)
/// ```
public struct ReaderCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The GitHub login, as `/user` returned it.
  public var login: String
  /// The GitHub numeric user id; it names the reader's ledger (`reader:<id>`) and their own cache
  /// entries (answers that hold private repositories, or may).
  public var userID: Int
  /// The OAuth access token; never logged, rendered or in a description.
  public var token: String
  /// What the token may see, from `/user`'s `X-OAuth-Scopes` (none at all: `.unknown`, which may
  /// see private repositories). Answers are scoped by their items whatever this says; it decides
  /// only whether the reader's answers may be shared before they are read.
  public var access: RepositoryAccess

  /// A credential from its parts.
  public init(login: String, userID: Int, token: String, access: RepositoryAccess) {
    self.login = login
    self.userID = userID
    self.token = token
    self.access = access
  }

  /// `ReaderCredential(login: …, userID: …, token: [redacted], access: …)`.
  public var description: String {
    "ReaderCredential(login: \(login), userID: \(userID), token: [redacted], access: \(access))"
  }

  /// Same as `description`, so `debugPrint` cannot leak the token either.
  public var debugDescription: String { description }

  /// A mirror without the token, so `dump` cannot leak it.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: ["login": login, "userID": userID, "token": "[redacted]", "access": access])
  }
}
