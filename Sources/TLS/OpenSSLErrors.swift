import COpenSSL

/// OpenSSL's per-thread error queue, read into text. Every call that may fail clears it first, so
/// what is read afterwards belongs to that call.
enum OpenSSLErrors {
  /// Empties the queue.
  static func clear() { ERR_clear_error() }

  /// The reason of the first queued error (the one closest to the cause), or `fallback` when the
  /// queue is empty; the queue is emptied.
  static func take(or fallback: String) -> String {
    let first = ERR_get_error()
    ERR_clear_error()
    guard first != 0, let reason = ERR_reason_error_string(first) else { return fallback }
    return String(cString: reason)
  }
}
