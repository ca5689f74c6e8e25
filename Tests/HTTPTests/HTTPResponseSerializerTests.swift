import Testing

@testable import HTTP

@Suite struct HTTPResponseSerializerTests {
  @Test func headCarriesFramingAndDropsUnsafeFields() {
    var out: [UInt8] = []
    let headers: HTTPHeaders = [
      "Content-Length": "999", "X-Ok": "1", "X-Bad": "a\r\nInjected: yes", "Connection": "x",
    ]
    HTTPResponseSerializer.writeHead(
      status: .ok, headers: headers, framing: .length(12), keepAlive: nil, date: Array("D".utf8),
      server: Array("S".utf8), into: &out)
    #expect(
      String(decoding: out, as: UTF8.self)
        == "HTTP/1.1 200 OK\r\nX-Ok: 1\r\nDate: D\r\nServer: S\r\nContent-Length: 12\r\n\r\n")
  }

  @Test func chunkedAndCloseForms() {
    var out: [UInt8] = []
    HTTPResponseSerializer.writeHead(
      status: .notModified, headers: [:], framing: .length(0), keepAlive: false, date: [], server: [],
      into: &out)
    #expect(
      String(decoding: out, as: UTF8.self)
        == "HTTP/1.1 304 Not Modified\r\nDate: \r\nServer: \r\nConnection: close\r\n\r\n")
    out = []
    HTTPResponseSerializer.writeChunk(Array(repeating: 65, count: 26), into: &out)
    HTTPResponseSerializer.writeChunk([], into: &out)
    #expect(String(decoding: out, as: UTF8.self) == "1a\r\n" + String(repeating: "A", count: 26) + "\r\n")
    out = []
    HTTPResponseSerializer.appendDecimal(1_234_567_890, to: &out)
    #expect(out == Array("1234567890".utf8))
  }
}
