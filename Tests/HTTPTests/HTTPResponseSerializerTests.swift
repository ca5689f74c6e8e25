import TestSupport
import Testing

@testable import HTTP

@Suite(.timeLimit(.minutes(2))) struct HTTPResponseSerializerTests {
  @Test func headCarriesFramingAndDropsUnsafeFields() {
    var out: [UInt8] = []
    let headers: HTTPHeaders = [
      "Content-Length": "999", "X-Ok": "1", "X-Bad": "a\r\nInjected: yes", "Connection": "x",
    ]
    HTTPResponseSerializer.writeHead(
      status: .ok, headers: headers, framing: .length(12), keepAlive: nil, date: Array("D".utf8),
      server: Array("S".utf8), into: &out)
    expectEqual(
      String(decoding: out, as: UTF8.self),
      "HTTP/1.1 200 OK\r\nX-Ok: 1\r\nDate: D\r\nServer: S\r\nContent-Length: 12\r\n\r\n")
  }

  @Test func anAddedFieldKeepsPrebuiltHeadersInStepAndAReplacementDropsThem() {
    var response = HTTPResponse(headers: ["Content-Type": "text/html", "X-Bad": "a\nb"])
    response.preserializeHeaders()
    response.replaceOrAddHeader(name: "ETag", value: "\"1\"")
    response.replaceOrAddHeader(name: "Server", value: "mine")
    expectTrue(response.headers["ETag"] == "\"1\"" && response.headers["Server"] == "mine")
    expectEqual(response.serializedHeaders, HTTPResponseSerializer.serialize(response.headers))
    expectEqual(
      response.serializedHeaders.map { String(decoding: $0, as: UTF8.self) },
      "Content-Type: text/html\r\nETag: \"1\"\r\n")
    response.replaceOrAddHeader(name: "etag", value: "\"2\"")
    expectEqual(response.serializedHeaders, nil)
    expectEqual(response.headers.values(for: "ETag"), ["\"2\""])
    var plain = HTTPResponse()
    plain.replaceOrAddHeader(name: "ETag", value: "\"3\"")
    expectTrue(plain.serializedHeaders == nil && plain.headers["ETag"] == "\"3\"")
  }

  @Test func chunkedAndCloseForms() {
    var out: [UInt8] = []
    HTTPResponseSerializer.writeHead(
      status: .notModified, headers: [:], framing: .length(0), keepAlive: false, date: [], server: [],
      into: &out)
    expectEqual(
      String(decoding: out, as: UTF8.self),
      "HTTP/1.1 304 Not Modified\r\nDate: \r\nServer: \r\nConnection: close\r\n\r\n")
    out = []
    HTTPResponseSerializer.writeChunk(Array(repeating: 65, count: 26), into: &out)
    HTTPResponseSerializer.writeChunk([], into: &out)
    expectEqual(String(decoding: out, as: UTF8.self), "1a\r\n" + String(repeating: "A", count: 26) + "\r\n")
    out = []
    HTTPResponseSerializer.appendDecimal(1_234_567_890, to: &out)
    expectEqual(out, Array("1234567890".utf8))
  }
}
