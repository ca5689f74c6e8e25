/// Hard limits the request parser enforces while bytes arrive.
public struct HTTPParserLimits: Sendable, Equatable {
  /// Longest request line (method, target, version) in bytes; beyond it: 414.
  public var maxRequestLineBytes: Int
  /// Largest header section in bytes; beyond it: 431.
  public var maxHeaderBytes: Int
  /// Most header fields; beyond it: 431.
  public var maxHeaderCount: Int
  /// Largest accepted body (Content-Length only); beyond it: 413.
  public var maxBodyBytes: Int

  /// Limits with the server's defaults unless given.
  public init(
    maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 16384, maxHeaderCount: Int = 100,
    maxBodyBytes: Int = 16384
  ) {
    self.maxRequestLineBytes = maxRequestLineBytes
    self.maxHeaderBytes = maxHeaderBytes
    self.maxHeaderCount = maxHeaderCount
    self.maxBodyBytes = maxBodyBytes
  }
}

/// What the parser made of the bytes so far.
public enum HTTPParseResult: Sendable {
  /// The request is not complete yet.
  case needMore
  /// A complete request that used the first `consumed` bytes.
  case request(HTTPRequest, consumed: Int)
  /// The bytes are not an acceptable request; answer with the error and close.
  case failure(HTTPError)
}

/// An incremental HTTP/1.1 request parser (RFC 9112) with hard limits; it does no I/O.
///
/// Feed it the unconsumed bytes each time more arrive; it remembers how far it scanned, so a
/// trickled head is not rescanned from the start.
public struct HTTPRequestParser: Sendable {
  /// The limits enforced.
  public let limits: HTTPParserLimits
  /// True once a complete head with `Expect: 100-continue` awaits its body.
  public private(set) var expectsContinue = false
  private var scanned = 0
  private var lineScanned = 0
  private var pending: (request: HTTPRequest, headLength: Int, bodyLength: Int)?

  /// A parser enforcing `limits`.
  public init(limits: HTTPParserLimits = HTTPParserLimits()) { self.limits = limits }

  /// Forgets partial progress (after a request was consumed or the buffer changed).
  public mutating func reset() {
    scanned = 0
    lineScanned = 0
    pending = nil
    expectsContinue = false
  }

  /// Marks the interim 100 response as sent.
  public mutating func continueSent() { expectsContinue = false }

  /// Parses from an array (convenience for tests and small inputs).
  public mutating func parse(_ bytes: [UInt8]) -> HTTPParseResult {
    bytes.withUnsafeBytes { parse($0) }
  }

  /// Parses the unconsumed bytes, which start with the next request.
  public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult {
    if let pending {
      let total = pending.headLength + pending.bodyLength
      guard bytes.count >= total else { return .needMore }
      var request = pending.request
      request.body = Array(UnsafeRawBufferPointer(rebasing: bytes[pending.headLength..<total]))
      reset()
      return .request(request, consumed: total)
    }
    let count = bytes.count
    // Leading empty lines before a request line are ignored (RFC 9112 §2.2).
    var start = 0
    while start + 1 < count && bytes[start] == 13 && bytes[start + 1] == 10 { start += 2 }
    if start > limits.maxRequestLineBytes { return .failure(HTTPError(.badRequest, "too many empty lines")) }
    // Find the end of the request line.
    var lineEnd = -1
    // Resume where the last call stopped, so a trickled request line is not rescanned from the start.
    var i = max(start, lineScanned)
    while i < count {
      if bytes[i] == 10 {
        lineEnd = i
        break
      }
      i += 1
    }
    if lineEnd < 0 {
      lineScanned = count
      if count - start > limits.maxRequestLineBytes {
        return .failure(HTTPError(.uriTooLong, "request line too long"))
      }
      return .needMore
    }
    if lineEnd - start > limits.maxRequestLineBytes {
      return .failure(HTTPError(.uriTooLong, "request line too long"))
    }
    // Find the blank line that ends the head.
    var end = -1
    var j = max(scanned, lineEnd)
    while j < count {
      if bytes[j] == 10 {
        if j + 2 < count, bytes[j + 1] == 13, bytes[j + 2] == 10 {
          end = j + 3
          break
        }
        if j + 1 < count, bytes[j + 1] == 10 {
          // A head already over the limit before this LF is 431, as it is when the bytes trickle in.
          if j + 1 - lineEnd > limits.maxHeaderBytes + 2 {
            return .failure(HTTPError(.requestHeaderFieldsTooLarge, "header section too large"))
          }
          return .failure(HTTPError(.badRequest, "bare LF in head"))
        }
      }
      j += 1
    }
    if end < 0 {
      scanned = max(lineEnd, count - 2)
      if count - lineEnd > limits.maxHeaderBytes + 2 {
        return .failure(HTTPError(.requestHeaderFieldsTooLarge, "header section too large"))
      }
      return .needMore
    }
    if end - lineEnd - 1 > limits.maxHeaderBytes + 2 {
      return .failure(HTTPError(.requestHeaderFieldsTooLarge, "header section too large"))
    }
    switch parseHead(bytes, start: start, lineEnd: lineEnd, end: end) {
    case .failure(let error): return .failure(error)
    case .success(let (request, bodyLength)):
      if bodyLength == 0 {
        reset()
        return .request(request, consumed: end)
      }
      pending = (request, end, bodyLength)
      expectsContinue =
        request.version == .http11 && request.headers.containsToken("100-continue", in: "Expect")
      return parse(bytes)
    }
  }

  private func parseHead(
    _ b: UnsafeRawBufferPointer, start: Int, lineEnd: Int, end: Int
  ) -> Result<(HTTPRequest, Int), HTTPError> {
    guard lineEnd > start, b[lineEnd - 1] == 13 else {
      return .failure(HTTPError(.badRequest, "bad request line"))
    }
    // Request line: method SP target SP version.
    var p = start
    while p < lineEnd - 1 && HTTPToken.isTokenChar(b[p]) { p += 1 }
    guard p > start, p < lineEnd - 1, b[p] == 32 else {
      return .failure(HTTPError(.badRequest, "bad method"))
    }
    let method = Self.string(b, start, p)
    p += 1
    let targetStart = p
    while p < lineEnd - 1 && b[p] > 32 && b[p] < 127 { p += 1 }
    guard p > targetStart, p < lineEnd - 1, b[p] == 32 else {
      return .failure(HTTPError(.badRequest, "bad request target"))
    }
    var target = Self.string(b, targetStart, p)
    p += 1
    guard lineEnd - 1 - p == 8, b[p] == 72, b[p + 1] == 84, b[p + 2] == 84, b[p + 3] == 80, b[p + 4] == 47,
      Self.isDigit(b[p + 5]), b[p + 6] == 46, Self.isDigit(b[p + 7])
    else { return .failure(HTTPError(.badRequest, "bad HTTP version")) }
    let version = HTTPVersion(major: Int(b[p + 5] - 48), minor: Int(b[p + 7] - 48))
    guard version == .http11 || version == .http10 else {
      return .failure(HTTPError(.httpVersionNotSupported, "HTTP version not supported"))
    }
    if !target.hasPrefix("/") {
      if target == "*" && method == "OPTIONS" {
        // asterisk-form is only valid for OPTIONS.
      } else if let path = Self.pathOfAbsoluteForm(target) {
        target = path
      } else {
        return .failure(HTTPError(.badRequest, "bad request target"))
      }
    }
    // Header fields.
    var headers = HTTPHeaders()
    var line = lineEnd + 1
    while line < end - 2 {
      var eol = line
      while b[eol] != 10 { eol += 1 }
      guard b[eol - 1] == 13 else { return .failure(HTTPError(.badRequest, "bare LF in header")) }
      if b[line] == 32 || b[line] == 9 { return .failure(HTTPError(.badRequest, "obsolete line folding")) }
      var colon = line
      while colon < eol - 1 && HTTPToken.isTokenChar(b[colon]) { colon += 1 }
      guard colon > line, b[colon] == 58 else { return .failure(HTTPError(.badRequest, "bad header field")) }
      var vs = colon + 1
      var ve = eol - 1
      while vs < ve && (b[vs] == 32 || b[vs] == 9) { vs += 1 }
      while ve > vs && (b[ve - 1] == 32 || b[ve - 1] == 9) { ve -= 1 }
      for k in vs..<ve where !Self.isFieldValueChar(b[k]) {
        return .failure(HTTPError(.badRequest, "bad character in header value"))
      }
      if headers.count >= limits.maxHeaderCount {
        return .failure(HTTPError(.requestHeaderFieldsTooLarge, "too many header fields"))
      }
      headers.add(name: Self.string(b, line, colon), value: Self.string(b, vs, ve))
      line = eol + 1
    }
    let request = HTTPRequest(
      method: HTTPMethod(rawValue: method), target: target, version: version, headers: headers)
    return Self.framing(of: request, limits: limits).map { (request, $0) }
  }

  /// Checks Host and body framing; returns the body length.
  static func framing(of request: HTTPRequest, limits: HTTPParserLimits) -> Result<Int, HTTPError> {
    // One pass over the fields; most requests have neither Content-Length nor Transfer-Encoding.
    var hosts = 0
    var lengths: [String] = []
    var transferEncoding = false
    var finalCoding: Substring = ""
    for field in request.headers.fields {
      switch field.name.utf8.count {
      case 4 where HTTPHeaders.equalsIgnoringCase(field.name, "Host"): hosts += 1
      case 14 where HTTPHeaders.equalsIgnoringCase(field.name, "Content-Length"): lengths.append(field.value)
      case 17 where HTTPHeaders.equalsIgnoringCase(field.name, "Transfer-Encoding"):
        transferEncoding = true
        // Several fields form one list; empty list elements do not count.
        for part in field.value.split(separator: ",") where !part.trimmingSpaces.isEmpty {
          finalCoding = part.trimmingSpaces
        }
      default: break
      }
    }
    if request.version == .http11 && hosts != 1 {
      return .failure(HTTPError(.badRequest, "exactly one Host header is required"))
    }
    if transferEncoding {
      if !lengths.isEmpty {
        return .failure(HTTPError(.badRequest, "both Content-Length and Transfer-Encoding"))
      }
      if request.version == .http10 {
        return .failure(HTTPError(.badRequest, "Transfer-Encoding in HTTP/1.0"))
      }
      // Without chunked last the body length is unknowable (RFC 9112 §6.3): 400, not 411.
      if !HTTPHeaders.equalsIgnoringCase(finalCoding, "chunked") {
        return .failure(HTTPError(.badRequest, "chunked is not the final transfer coding"))
      }
      return .failure(HTTPError(HTTPStatus(code: 411), "a request body needs Content-Length"))
    }
    var length: Int?
    for value in lengths {
      for part in value.split(separator: ",", omittingEmptySubsequences: false) {
        let digits = part.trimmingSpaces.utf8
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
          return .failure(HTTPError(.badRequest, "bad Content-Length"))
        }
        let n = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        if let length, length != n { return .failure(HTTPError(.badRequest, "conflicting Content-Length")) }
        length = n
      }
    }
    let n = length ?? 0
    if n > limits.maxBodyBytes { return .failure(HTTPError(.payloadTooLarge, "request body too large")) }
    return .success(n)
  }

  /// The path of `http://host/path`, or nil when it is not absolute-form.
  static func pathOfAbsoluteForm(_ target: String) -> String? {
    let lower = target.lowercased()
    let scheme: Int
    if lower.hasPrefix("http://") {
      scheme = 7
    } else if lower.hasPrefix("https://") {
      scheme = 8
    } else {
      return nil
    }
    let rest = target.utf8.dropFirst(scheme)
    guard let slash = rest.firstIndex(where: { $0 == 47 || $0 == 63 }) else { return "/" }
    let tail = String(Substring(target.utf8[slash...]))
    return tail.hasPrefix("/") ? tail : "/" + tail
  }

  @inline(__always) static func string(_ b: UnsafeRawBufferPointer, _ from: Int, _ to: Int) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: b[from..<to]), as: UTF8.self)
  }

  @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

  @inline(__always) static func isFieldValueChar(_ c: UInt8) -> Bool { c == 9 || (c >= 32 && c != 127) }
}

extension HTTPRequest {
  /// Whether the connection may stay open after this request (RFC 9112 §9.3).
  public var keepAlive: Bool {
    if version == .http11 { return !headers.containsToken("close", in: "Connection") }
    return version == .http10 && headers.containsToken("keep-alive", in: "Connection")
      && !headers.containsToken("close", in: "Connection")
  }
}
