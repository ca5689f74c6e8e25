import HTTP
import TestSupport
import Testing

/// RFC 9112 §6.3: a request whose Transfer-Encoding does not end in chunked has no knowable length.
@Suite(.timeLimit(.minutes(2))) struct TransferEncodingFramingTests {
  /// Codings whose last is not chunked: the body's length cannot be known (400).
  static let unframeable = ["gzip", "identity", "chunked, identity", "chunked, gzip", "", "xchunked"]
  /// Codings that end in chunked: framed, but the server takes no chunked request bodies (411).
  static let chunked = ["chunked", "CHUNKED", "gzip, chunked", "chunked, "]

  @Test(arguments: unframeable.map { ($0, 400) } + chunked.map { ($0, 411) })
  func finalCodingDecidesTheAnswer(_ value: String, _ status: Int) {
    let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \(value)\r\n\r\n"
    expectEqual(outcome(head), status, "Transfer-Encoding: \(value)")
  }

  @Test func listSpreadOverTwoFieldsIsOneList() {
    let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n"
    expectEqual(outcome(head), 400)
  }
}
