/// Content types by file extension for static files.
enum MediaTypes {
  static let byExtension: [String: String] = [
    "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
    "json": "application/json", "map": "application/json", "txt": "text/plain; charset=utf-8",
    "xml": "application/xml", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
    "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "avif": "image/avif",
    "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2", "wasm": "application/wasm",
    "webmanifest": "application/manifest+json", "pdf": "application/pdf",
  ]

  /// The type for a file name, `application/octet-stream` when unknown.
  static func type(forFileName name: Substring) -> String {
    guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
    return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
  }

  /// Whether a type is text-like, so that gzip pays (images and fonts are compressed already).
  static func compresses(_ type: String) -> Bool {
    type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("application/xml")
      || type.hasPrefix("application/manifest+json") || type.hasPrefix("image/svg+xml")
      || type.hasPrefix("application/wasm")
  }
}
