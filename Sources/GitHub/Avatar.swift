/// Avatar image bytes from the configured avatar host.
public struct Avatar: Sendable {
  /// The image bytes (at most `maxAvatarBytes`).
  public var bytes: [UInt8]
  /// One of `image/png`, `image/jpeg`, `image/gif`, `image/webp`.
  public var contentType: String
  /// The host's ETag, if it sent one.
  public var etag: String?

  /// An avatar from its parts.
  public init(bytes: [UInt8], contentType: String, etag: String?) {
    self.bytes = bytes
    self.contentType = contentType
    self.etag = etag
  }
}
