/// An HTTP request method, kept as its exact token (methods are case-sensitive).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The method token as sent on the wire, for example `GET`.
  public let rawValue: String

  /// Wraps a method token.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// `GET`.
  public static let get = HTTPMethod(rawValue: "GET")
  /// `HEAD`.
  public static let head = HTTPMethod(rawValue: "HEAD")
  /// `POST`.
  public static let post = HTTPMethod(rawValue: "POST")
  /// `PUT`.
  public static let put = HTTPMethod(rawValue: "PUT")
  /// `DELETE`.
  public static let delete = HTTPMethod(rawValue: "DELETE")
  /// `OPTIONS`.
  public static let options = HTTPMethod(rawValue: "OPTIONS")
  /// `PATCH`.
  public static let patch = HTTPMethod(rawValue: "PATCH")

  /// The token itself.
  public var description: String { rawValue }
}
