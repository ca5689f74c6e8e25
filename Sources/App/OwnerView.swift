import Mustache

/// A card's `owner`: login, page, initials and avatar paths. The avatar paths are made once here,
/// because the card template reads each of them twice (a section, then the value).
final class OwnerView: MustacheObject {
  let login: String
  /// `/avatars/{id}?s=80` and `?s=160`; nil when GitHub sent no owner id.
  private let avatar: MustacheValue?
  private let avatar2x: MustacheValue?

  /// An owner by login and account id (0 when GitHub sent no owner).
  init(login: String, id: Int) {
    self.login = login
    avatar = Self.avatar(id: id, size: 80)
    avatar2x = Self.avatar(id: id, size: 160)
  }

  func value(for key: String) -> MustacheValue? {
    switch key {
    case "login": return .string(login)
    case "page":
      return .string(
        TextBuilder.make(capacity: 8 + TextBuilder.encodedCapacity(login)) {
          $0.ascii("/owners/")
          $0.encode(login)
        })
    case "initials": return .string(Self.initials(login))
    case "avatar": return avatar
    case "avatar2x": return avatar2x
    default: return nil
    }
  }

  /// The avatar through this server (never a GitHub URL: CSP `img-src 'self'`); nil without an owner id.
  private static func avatar(id: Int, size: Int) -> MustacheValue? {
    guard id > 0 else { return nil }
    return .string(
      TextBuilder.make(capacity: 12 + TextBuilder.decimalCount(id) + TextBuilder.decimalCount(size)) {
        $0.ascii("/avatars/")
        $0.decimal(id)
        $0.ascii("?s=")
        $0.decimal(size)
      })
  }

  /// One or two capital letters from a login: `octo-cat` → `OC`, `swift` → `S`.
  static func initials(_ login: String) -> String {
    if login.utf8.allSatisfy({ $0 < 0x80 }) { return asciiInitials(login) }
    var letters: [Character] = []
    var atStart = true
    for character in login where letters.count < 2 {
      if character == "-" || character == "_" || character == "." {
        atStart = true
      } else if atStart {
        letters.append(character)
        atStart = false
      }
    }
    let text = (letters.isEmpty ? String(login.prefix(1)) : String(letters)).uppercased()
    return text.isEmpty ? "?" : text
  }

  /// `initials` for an ASCII login (every GitHub login), without intermediate strings.
  private static func asciiInitials(_ login: String) -> String {
    guard let first = login.utf8.first else { return "?" }
    return TextBuilder.make(capacity: 2) { out in
      var atStart = true
      for byte in login.utf8 where out.count < 2 {
        if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") {
          atStart = true
        } else if atStart {
          out.byte(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
          atStart = false
        }
      }
      if out.count == 0 { out.byte(first) }
    }
  }
}
