// The HTTP target's incremental request parser, driven the way a connection drives it.
import HTTP

/// Small limits, so short inputs reach every limit check.
let smallLimits = HTTPParserLimits(
  maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderCount: 6, maxBodyBytes: 32)
/// The server's defaults.
let defaultLimits = HTTPParserLimits()

/// What a connection would see, in order; ends with a failure, or with `incomplete` when bytes remain.
enum Event: Equatable {
  case request(
    method: String, target: String, version: HTTPVersion, headers: HTTPHeaders, body: [UInt8], consumed: Int)
  case failure(status: Int)
  case incomplete(Int)
}

/// Appends each chunk to one buffer and parses every request it completes, as a connection does.
func drive(_ chunks: [ArraySlice<UInt8>], limits: HTTPParserLimits) -> [Event] {
  var parser = HTTPRequestParser(limits: limits)
  var buffer: [UInt8] = []
  var start = 0
  var events: [Event] = []
  for chunk in chunks {
    buffer.append(contentsOf: chunk)
    while start < buffer.count {
      let result = buffer.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[start...])) }
      switch result {
      case .needMore:
        break
      case .request(let request, let consumed):
        check(request, consumed: consumed, available: buffer.count - start, limits: limits)
        events.append(
          .request(
            method: request.method.rawValue, target: request.target, version: request.version,
            headers: request.headers, body: request.body, consumed: consumed))
        start += consumed
        continue
      case .failure(let error):
        expect((400..<600).contains(error.status.code), "failure with status \(error.status)")
        events.append(.failure(status: error.status.code))
        return events
      }
      break
    }
  }
  if start < buffer.count { events.append(.incomplete(buffer.count - start)) }
  return events
}

/// Every accepted request stays inside the limits and is well formed.
func check(_ request: HTTPRequest, consumed: Int, available: Int, limits: HTTPParserLimits) {
  expect(consumed > 0 && consumed <= available, "consumed \(consumed) of \(available)")
  let method = request.method.rawValue.utf8
  expect(!method.isEmpty && method.allSatisfy(isTokenChar), "bad method \(request.method)")
  let target = request.target.utf8
  expect(target.first == UInt8(ascii: "/") || request.target == "*", "bad target \(request.target)")
  expect(target.allSatisfy { $0 > 32 && $0 < 127 }, "control or space in target")
  expect(method.count + target.count + 10 <= limits.maxRequestLineBytes + 1, "request line over limit")
  expect(request.version == .http11 || request.version == .http10, "version \(request.version)")
  expect(request.headers.count <= limits.maxHeaderCount, "\(request.headers.count) header fields")
  var headerBytes = 0
  var hosts = 0
  for field in request.headers {
    expect(!field.name.isEmpty && field.name.utf8.allSatisfy(isTokenChar), "bad field name")
    expect(
      field.value.utf8.allSatisfy { $0 == 9 || ($0 >= 32 && $0 != 127) }, "control byte in field value")
    expect(field.value.utf8.first != 32 && field.value.utf8.last != 32, "untrimmed value")
    headerBytes += field.name.utf8.count + wireLength(field.value) + 3
    if HTTPHeaders.equalsIgnoringCase(field.name, "Host") { hosts += 1 }
    expect(!HTTPHeaders.equalsIgnoringCase(field.name, "Transfer-Encoding"), "Transfer-Encoding accepted")
  }
  expect(headerBytes <= limits.maxHeaderBytes + 2, "header section over limit: \(headerBytes)")
  expect(request.version == .http10 || hosts == 1, "HTTP/1.1 request with \(hosts) Host fields")
  expect(request.body.count <= limits.maxBodyBytes, "body over limit: \(request.body.count)")
  let length = request.headers["Content-Length"]
  expect(request.body.isEmpty || length != nil, "body without Content-Length")
}

/// The fewest bytes `value` can have come from: each U+FFFD may stand for one invalid byte on the wire.
func wireLength(_ value: String) -> Int {
  value.unicodeScalars.reduce(0) { $0 + ($1 == "\u{FFFD}" ? 1 : UTF8.width($1)) }
}

/// RFC 9110 tchar, written out here on purpose: an oracle that called `HTTPToken` would check the
/// parser against itself.
func isTokenChar(_ c: UInt8) -> Bool {
  switch c {
  case 48...57, 65...90, 97...122, 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
  default: return false
  }
}

/// libFuzzer entry: the bytes are parsed in one feed, in two feeds split at an input-derived point and
/// (short inputs) byte by byte, with small and default limits; all must give the same requests and the
/// same final answer.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data, size > 0 else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for limits in [smallLimits, defaultLimits] {
    _ = outcomeAgreeingAcrossFeeds(bytes, trickleLimit: 512) { drive($0, limits: limits) }
  }
  return 0
}
