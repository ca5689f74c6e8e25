import GitHub
import SharedStore

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

  /// The reader (whose description never shows the token) and times.
  public var description: String {
    "SessionRecord(reader: \(reader), created: \(created), lastSeen: \(lastSeen))"
  }
}

/// The record's byte form, kept in an extension so the record keeps its memberwise init.
extension SessionRecord {
  /// The format version written first, so a later format can tell old records apart.
  static let version: UInt8 = 1

  /// The plaintext the store gets sealed.
  var encoded: [UInt8] {
    var writer = ByteWriter(capacity: 96 + reader.token.utf8.count + reader.login.utf8.count)
    writer.byte(Self.version)
    writer.signed(reader.userID)
    writer.string(reader.login)
    writer.string(reader.token)
    // One byte: 0 public only, 1 `repo`, 2 unknown (records from when this was a bool read the same).
    writer.byte(reader.access.rawValue)
    writer.signed(created)
    writer.signed(lastSeen)
    return writer.bytes
  }

  /// A record from `encoded` bytes, or nil for any other bytes.
  init?(encoded bytes: [UInt8]) {
    var reader = ByteReader(bytes)
    guard reader.byte() == Self.version, let userID = reader.signed(),
      let login = reader.string(maxBytes: 256), let token = reader.string(maxBytes: 1024),
      let access = reader.byte().flatMap(RepositoryAccess.init(rawValue:)), let created = reader.signed(),
      let lastSeen = reader.signed(),
      reader.isAtEnd
    else { return nil }
    self.init(
      reader: ReaderCredential(login: login, userID: userID, token: token, access: access),
      created: created, lastSeen: lastSeen)
  }
}
