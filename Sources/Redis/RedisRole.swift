/// What a server says it is when asked `ROLE`.
public enum RedisRole: String, Sendable, Equatable, CaseIterable {
  /// It takes writes.
  case master
  /// It copies a master and refuses writes (`READONLY`).
  case replica
  /// A Redis Sentinel, not a data server.
  case sentinel
  /// It did not say: `ROLE` is refused to this ACL user, renamed, or answered something else.
  case unknown

  /// The role in a `ROLE` reply (`master`, `slave` or `sentinel` first).
  init(reply: RESPValue) {
    switch reply.array?.first?.string {
    case "master": self = .master
    case "slave", "replica": self = .replica
    case "sentinel": self = .sentinel
    default: self = .unknown
    }
  }
}
