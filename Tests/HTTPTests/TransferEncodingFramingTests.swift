import HTTP
import Testing

/// RFC 9112 §6.3: a request whose Transfer-Encoding does not end in chunked has no knowable length.
@Suite(.timeLimit(.minutes(2))) struct TransferEncodingFramingTests {
  static let cases: [(String, Int)] = [
    ("gzip", 400),
    ("identity", 400),
    ("chunked, identity", 400),
    ("chunked, gzip", 400),
    ("", 400),
    ("xchunked", 400),
    ("chunked", 411),
    ("CHUNKED", 411),
    ("gzip, chunked", 411),
    ("chunked, ", 411),
  ]

  @Test(arguments: cases)
  func finalCodingDecidesTheAnswer(_ value: String, _ status: Int) {
    var parser = HTTPRequestParser()
    let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \(value)\r\n\r\n"
    guard case .failure(let error) = parser.parse(Array(head.utf8)) else {
      Issue.record("Transfer-Encoding: \(value) was accepted")
      return
    }
    #expect(error.status.code == status)
  }

  @Test func listSpreadOverTwoFieldsIsOneList() {
    var parser = HTTPRequestParser()
    let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n"
    guard case .failure(let error) = parser.parse(Array(head.utf8)) else {
      Issue.record("accepted")
      return
    }
    #expect(error.status.code == 400)
  }
}
