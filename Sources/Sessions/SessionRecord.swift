import Credentials
import Encodings

/// What the server keeps about one signed-in reader. The store only ever holds it sealed
/// (`SessionBook`), the token included.
public struct SessionRecord: Sendable, Equatable, CustomStringConvertible {
  /// The reader's GitHub identity and token, as their GitHub calls carry it.
  public var reader: ReaderCredential
  /// Unix seconds of the sign-in (the absolute timeout counts from here).
  public var created: Int
  /// Unix seconds of the last request seen (the idle timeout counts from here), written at most once
  /// per `SessionPolicy.touchInterval`.
  public var lastSeen: Int
  /// When the token expires and the refresh token that renews it; nil for a token that does not
  /// expire (an OAuth app's, as before).
  public var expiry: TokenExpiry? = nil

  /// A record from its parts.
  public init(reader: ReaderCredential, created: Int, lastSeen: Int, expiry: TokenExpiry? = nil) {
    self.reader = reader
    self.created = created
    self.lastSeen = lastSeen
    self.expiry = expiry
  }

  /// The reader (whose description never shows the token), times and expiry.
  public var description: String {
    "SessionRecord(reader: \(reader), created: \(created), lastSeen: \(lastSeen), "
      + "expiry: \(expiry.map(String.init(describing:)) ?? "nil"))"
  }
}

/// The record's byte form. Version 2 adds the token's expiry and refresh token. Version 1 records
/// (written before tokens could expire) still open, as records without expiry: they were made for
/// tokens that do not expire, so reading them that way is exactly what they meant, and refusing them
/// would sign every reader out at the upgrade. Any other version is refused.
extension SessionRecord {
  /// The format version written first, so a later format can tell old records apart.
  static let version: UInt8 = 2
  /// The version before tokens could expire.
  static let versionWithoutExpiry: UInt8 = 1

  /// The plaintext the store gets sealed.
  var encoded: [UInt8] {
    var writer = ByteWriter(
      capacity: 128 + reader.token.utf8.count + reader.login.utf8.count
        + (expiry?.refreshToken?.utf8.count ?? 0))
    writer.byte(Self.version)
    writer.signed(reader.userID)
    writer.string(reader.login)
    writer.string(reader.token)
    // One byte: 0 public only, 1 `repo`, 2 unknown (records from when this was a bool read the same).
    writer.byte(reader.access.rawValue)
    writer.signed(created)
    writer.signed(lastSeen)
    writer.bool(expiry != nil)
    if let expiry {
      writer.signed(expiry.accessExpires)
      writer.optionalString(expiry.refreshToken)
      writer.signed(expiry.refreshExpires)
    }
    return writer.bytes
  }

  /// A record from `encoded` bytes (version 2, or 1), or nil for any other bytes.
  init?(encoded bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    let version = reader.byte()
    guard version == Self.version || version == Self.versionWithoutExpiry, let userID = reader.signed(),
      let login = reader.string(maxBytes: 256), let token = reader.string(maxBytes: 1024),
      let access = reader.byte().flatMap(RepositoryAccess.init(rawValue:)), let created = reader.signed(),
      let lastSeen = reader.signed()
    else { return nil }
    var expiry: TokenExpiry?
    if version == Self.version {
      guard let expires = reader.bool() else { return nil }
      if expires {
        guard let accessExpires = reader.signed(), let refreshToken = reader.optionalString(maxBytes: 1024),
          let refreshExpires = reader.signed()
        else { return nil }
        expiry = TokenExpiry(
          accessExpires: accessExpires, refreshToken: refreshToken, refreshExpires: refreshExpires)
      }
    }
    guard reader.isAtEnd else { return nil }
    self.init(
      reader: ReaderCredential(login: login, userID: userID, token: token, access: access),
      created: created, lastSeen: lastSeen, expiry: expiry)
  }
}
