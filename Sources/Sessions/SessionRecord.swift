import SharedStore

/// What the server keeps about one signed-in reader. The store only ever holds it sealed
/// (`SessionBook`), the token included.
public struct SessionRecord: Sendable, Equatable, CustomStringConvertible {
  /// GitHub numeric user id.
  public var userID: Int
  /// GitHub login.
  public var login: String
  /// The OAuth access token; never logged, rendered or in a description.
  public var token: String
  /// Whether the token's scopes grant private repositories.
  public var seesPrivate: Bool
  /// Unix seconds of the sign-in (the absolute timeout counts from here).
  public var created: Int
  /// Unix seconds of the last request seen (the idle timeout counts from here), written at most once
  /// per `SessionPolicy.touchInterval`.
  public var lastSeen: Int

  /// A record from its parts.
  public init(userID: Int, login: String, token: String, seesPrivate: Bool, created: Int, lastSeen: Int) {
    self.userID = userID
    self.login = login
    self.token = token
    self.seesPrivate = seesPrivate
    self.created = created
    self.lastSeen = lastSeen
  }

  /// The reader's login and times, never the token.
  public var description: String {
    "SessionRecord(login: \(login), userID: \(userID), token: [redacted], created: \(created), lastSeen: \(lastSeen))"
  }

  /// The format version written first, so a later format can tell old records apart.
  static let version: UInt8 = 1

  /// The plaintext the store gets sealed.
  var encoded: [UInt8] {
    var writer = ByteWriter(capacity: 96 + token.utf8.count + login.utf8.count)
    writer.byte(Self.version)
    writer.signed(userID)
    writer.string(login)
    writer.string(token)
    writer.bool(seesPrivate)
    writer.signed(created)
    writer.signed(lastSeen)
    return writer.bytes
  }

  /// A record from `encoded` bytes, or nil for any other bytes.
  init?(encoded bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    guard reader.byte() == Self.version, let userID = reader.signed(),
      let login = reader.string(maxBytes: 256), let token = reader.string(maxBytes: 1024),
      let seesPrivate = reader.bool(), let created = reader.signed(), let lastSeen = reader.signed(),
      reader.isAtEnd
    else { return nil }
    self.init(
      userID: userID, login: login, token: token, seesPrivate: seesPrivate, created: created,
      lastSeen: lastSeen)
  }
}
