import Clocks
import Compression
import HTTP
import HTTPServer

extension GitHubDouble {
  /// Applies a hostile mode to an answer the double would otherwise give, or answers in its place.
  func misbehave(
    _ mode: HostileMode, _ route: Route, _ request: HTTPRequest, _ response: HTTPResponse, hangLimit: Duration
  ) async throws -> HTTPResponse {
    var r = response
    let body: [UInt8]
    if case .bytes(let b) = response.body { body = b } else { body = [] }
    var rng = SplitMix64(seed: SplitMix64.hash(configuration.seed, Self.stableHash(request.target)))
    let now = time.epochSeconds()
    let token = Self.token(of: request)
    switch mode {
    case .hugeCounts, .negativeCounts, .floatCounts, .overflowCounts:
      let value: String =
        switch mode {
        case .hugeCounts: "9223372036854775807"
        case .negativeCounts: "-9223372036854775808"
        case .floatCounts: "1e300"
        default: "123456789012345678901234567890"
        }
      r.body = .bytes(
        Self.editItems(body) { item, _ in
          var out = item
          for f in ["stargazers_count", "watchers_count", "forks_count", "open_issues_count", "size", "id"]
          where f != "id" || mode == .overflowCounts {
            out = JSONSurgery.replacing(f, in: out, with: Array(value.utf8))
          }
          return out
        })
    case .stringCounts:
      r.body = .bytes(
        Self.editItems(body) { item, _ in
          guard rng.chance(0.4) else { return item }
          let spoiled = JSONSurgery.replacing("stargazers_count", in: item, with: Array("\"12\"".utf8))
          return JSONSurgery.replacing("forks_count", in: spoiled, with: Array("\"many\"".utf8))
        })
    case .nullFields:
      r.body = .bytes(
        Self.editItems(body) { item, _ in
          guard rng.chance(0.4) else { return item }
          var out = item
          for f in ["name", "full_name", "stargazers_count", "created_at", "owner", "html_url"] {
            out = JSONSurgery.replacing(f, in: out, with: Array("null".utf8))
          }
          return out
        })
    case .hugeTotal:
      r.body = .bytes(JSONSurgery.replacing("total_count", in: body, with: Array("9223372036854775807".utf8)))
    case .negativeTotal:
      r.body = .bytes(JSONSurgery.replacing("total_count", in: body, with: Array("-5".utf8)))
    case .historyHuge:
      r.body = .bytes(
        Self.editItems(body) { week, i in
          let total = i % 2 == 0 ? "100000000000000000" : "9223372036854775807"
          let spoiled = JSONSurgery.replacing("total", in: week, with: Array(total.utf8))
          guard i == 1 else { return spoiled }
          return JSONSurgery.replacing(
            "days", in: spoiled, with: Array("[9223372036854775807,1,1,1,1,1,9223372036854775807]".utf8))
        })
    case .malformedItems:
      let spoilers = [("id", "\"abc\""), ("owner", "5"), ("name", "[1,2]"), ("html_url", "{}")]
      r.body = .bytes(
        Self.editItems(body) { item, i in
          guard i == 0 || rng.chance(0.3) else { return item }
          let (field, raw) = spoilers[rng.below(spoilers.count)]
          return JSONSurgery.replacing(field, in: item, with: Array(raw.utf8))
        })
    case .junkItems:
      let junk = ["1", "\"x\"", "null", "[]", "{}", "true"].map { Array($0.utf8) }
      r.body = .bytes(
        Self.editList(body) { items in
          var out: [[UInt8]] = []
          for (i, item) in items.enumerated() {
            out.append(item)
            if i % 3 == 0 { out.append(junk[rng.below(junk.count)]) }
          }
          return out
        })
    case .duplicateIDs:
      r.body = .bytes(
        Self.editItems(body) { item, _ in JSONSurgery.replacing("id", in: item, with: Array("4242".utf8)) })
    case .historyBadWeeks:
      r.body = .bytes(
        Self.editItems(body) { week, i in
          switch i % 3 {
          case 0: JSONSurgery.replacing("days", in: week, with: Array("[1,2,3]".utf8))
          case 1: JSONSurgery.replacing("week", in: week, with: Array("\"soon\"".utf8))
          default: JSONSurgery.replacing("days", in: week, with: Array("\"x\"".utf8))
          }
        })
    case .historyObject:
      r.body = .bytes(Array("{\"weeks\":{\"total\":3}}".utf8))
    case .invalidUTF8:
      r.body = .bytes(
        Self.editItems(body) { item, _ in
          JSONSurgery.replacing(
            "description", in: item, with: [0x22, 0x62, 0xFF, 0xFE, 0x20, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x22])
        })
    case .loneSurrogate:
      r.body = .bytes(
        Self.editItems(body) { item, _ in
          JSONSurgery.replacing("description", in: item, with: Array(#""before \ud800 after \udfff""#.utf8))
        })
    case .controlChars:
      r.body = .bytes(
        Self.editItems(body) { item, _ in
          JSONSurgery.replacing(
            "description", in: item, with: Array(#""a\u0000b\u0007c\u001b[31mred\u0008\u007f\r\nend""#.utf8))
        })
    case .hugeStrings:
      r.body = .bytes(
        Self.editItems(body) { item, i in
          guard i == 0 else { return item }
          let long = [0x22] + [UInt8](repeating: UInt8(ascii: "a"), count: 2_000_000) + [0x22]
          return JSONSurgery.replacing("description", in: item, with: long)
        })
    case .deepNesting:
      r.body = .bytes(
        Self.editItems(body) { item, i in
          guard i == 0 else { return item }
          let deep =
            [UInt8](repeating: UInt8(ascii: "["), count: 5000)
            + [UInt8](repeating: UInt8(ascii: "]"), count: 5000)
          return JSONSurgery.replacing(route == .search ? "license" : "days", in: item, with: deep)
        })
    case .emptyBody:
      r.body = .empty
    case .notJSON:
      r.headers.replaceOrAdd(name: "Content-Type", value: "text/html; charset=utf-8")
      r.body = .bytes(
        Array("<html><body><h1>Unicorn!</h1><p>This page is taking too long.</p></body></html>".utf8))
    case .wrongEnvelope:
      let raw =
        route == .search
        ? "{\"total_count\":\"many\",\"incomplete_results\":\"yes\",\"items\":{\"0\":{\"id\":1}}}"
        : "\"not an array\""
      r.body = .bytes(Array(raw.utf8))
    case .truncated:
      r.body = .bytes(Array(body.prefix(max(1, body.count / 2))))
    case .shortPages:
      guard route == .search else { break }
      r.body = .bytes(Self.shortened(body, keep: 3))
    case .resetFarFuture, .resetPast:
      let reset = mode == .resetPast ? 1000 : now + 315_360_000
      r.headers.replaceOrAdd(name: "x-ratelimit-remaining", value: "0")
      r.headers.replaceOrAdd(name: "x-ratelimit-reset", value: String(reset))
    case .primaryFarFuture:
      var h = HTTPHeaders()
      h.add(name: "x-ratelimit-limit", value: "30")
      h.add(name: "x-ratelimit-remaining", value: "0")
      h.add(name: "x-ratelimit-reset", value: String(now + 315_360_000))
      h.add(name: "x-ratelimit-resource", value: route.resource?.rawValue ?? "core")
      r = GitHubResponses.primaryLimit(
        status: 403, headers: h, authenticated: token != nil, address: "127.0.0.1")
    case .retryAfterHuge, .retryAfterNegative, .retryAfterGarbage:
      let value =
        switch mode {
        case .retryAfterHuge: "999999999999"
        case .retryAfterNegative: "-30"
        default: "soon"
        }
      r = GitHubResponses.secondaryLimit(headers: ["Retry-After": value], requestID: "0000:DEAD")
    case .rateGarbage:
      for (name, value) in [
        ("x-ratelimit-limit", "-1"), ("x-ratelimit-remaining", "lots"), ("x-ratelimit-reset", "tomorrow"),
        ("x-ratelimit-used", "NaN"), ("x-ratelimit-resource", "\u{7F}??"),
      ] {
        r.headers.replaceOrAdd(name: name, value: value)
      }
    case .bare429:
      r = HTTPResponse(status: HTTPStatus(code: 429))
    case .abuseHTML:
      r = HTTPResponse(
        status: .forbidden, headers: ["Content-Type": "text/html"],
        body: .bytes(
          Array(
            "<!DOCTYPE html><html><body><h1>Whoa there!</h1><p>You have triggered an abuse detection mechanism."
              .utf8)))
    case .abuseJSON:
      r = GitHubResponses.error(
        .forbidden,
        message:
          "You have triggered an abuse detection mechanism. Please wait a few minutes before you try again.",
        documentation: "https://developer.github.com/v3/#abuse-rate-limits", extra: ["Retry-After": "60"])
    case .forbiddenEmpty:
      r = HTTPResponse(status: .forbidden)
    case .gzipBomb:
      r.headers.replaceOrAdd(name: "Content-Encoding", value: "gzip")
      r.body = .bytes(GitHubDouble.gzipBomb)
    case .gzipInvalid:
      r.headers.replaceOrAdd(name: "Content-Encoding", value: "gzip")
    case .hugeBody:
      let spaces = [UInt8](repeating: 0x20, count: 65536)
      r.body = Self.streamed(Array(repeating: spaces, count: 640) + [body], pause: nil)
    case .hugeHeader:
      r.headers.add(name: "X-Padding", value: String(repeating: "a", count: 262_144))
    case .manyHeaders:
      for i in 0..<5000 { r.headers.add(name: "X-Filler-\(i)", value: "v") }
    case .dropConnection:
      let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
      continuation.yield(Array(body.prefix(body.count / 2)))
      continuation.finish(throwing: HTTPError(.internalServerError, "cut"))
      r.body = .stream(stream)
    case .slowBody:
      let piece = max(1, body.count / 10)
      r.body = Self.streamed(
        stride(from: 0, to: body.count, by: piece).map {
          Array(body[$0..<min($0 + piece, body.count)])
        }, pause: .milliseconds(300))
    case .badGateway:
      r = HTTPResponse(
        status: HTTPStatus(code: 502), headers: ["Content-Type": "text/html"],
        body: .bytes(Array("<html><body><h1>502 Bad Gateway</h1></body></html>".utf8)))
    case .apiHang, .avatarHang:
      try await hang(limit: hangLimit)
      r = GitHubResponses.error(HTTPStatus(code: 504), message: "Gateway Timeout", documentation: nil)
    case .redirectLoop:
      let base = configuration.publicBaseURL ?? "http://" + (request.headers["Host"] ?? "127.0.0.1")
      r = HTTPResponse(status: .found, headers: ["Location": base + String(request.target)])
    case .redirectMetadata:
      r = HTTPResponse(status: .found, headers: ["Location": "http://169.254.169.254/latest/meta-data/"])
    case .echoToken:
      let leak = Array("\"leaked \(token ?? "no-token") here\"".utf8)
      r.body = .bytes(
        Self.editItems(body) { item, _ in JSONSurgery.replacing("description", in: item, with: leak) })
    case .echoTokenEscaped:
      let escaped = (token ?? "no-token").unicodeScalars.map { "\\u" + Self.hex4($0.value) }.joined()
      let leak = Array(("\"" + String(repeating: "x", count: 296) + escaped + "\"").utf8)
      r.body = .bytes(
        Self.editItems(body) { item, _ in JSONSurgery.replacing("description", in: item, with: leak) })
    case .echoTokenError:
      let message = "Bad credentials: Bearer \(token ?? "no-token") is not valid"
      r = GitHubResponses.error(
        route == .search ? .unprocessableContent : .forbidden, message: message, documentation: nil)
    case .avatarSlow:
      try await Task.sleep(for: .seconds(3))
    case .avatarNotImage:
      r.headers.replaceOrAdd(name: "Content-Type", value: "text/html")
      r.body = .bytes(Array("<html><body>not an image</body></html>".utf8))
    case .avatarHuge:
      r.body = .bytes(Array(body.prefix(16)) + [UInt8](repeating: 0, count: 4_000_000))
    case .avatarGzipBomb:
      r.headers.replaceOrAdd(name: "Content-Encoding", value: "gzip")
      r.body = .bytes(GitHubDouble.gzipBomb)
    }
    return r
  }

  /// Whether `mode` touches answers of `route`.
  static func applies(_ mode: HostileMode, to route: Route) -> Bool {
    if route.endpoint == .avatar { return mode.targetsAvatars }
    if mode.targetsAvatars || route.endpoint == .rateLimit { return false }
    switch mode {
    case .historyHuge, .historyBadWeeks, .historyObject:
      if case .history = route { return true }
      return false
    case .hugeCounts, .negativeCounts, .floatCounts, .overflowCounts, .stringCounts, .nullFields, .hugeTotal,
      .negativeTotal, .malformedItems, .duplicateIDs, .loneSurrogate, .controlChars, .invalidUTF8,
      .hugeStrings,
      .echoToken, .echoTokenEscaped, .shortPages:
      return route == .search
    case .junkItems, .deepNesting, .wrongEnvelope:
      if route == .search { return true }
      if case .history = route { return true }
      return false
    default:
      return true
    }
  }

  /// 64 MiB of spaces as one gzip member of about 64 KB; built once, on first use.
  static let gzipBomb: [UInt8] = {
    guard let stream = try? GzipStream(level: 9) else { return [] }
    let chunk = [UInt8](repeating: 0x20, count: 1 << 20)
    var out: [UInt8] = []
    for _ in 0..<63 { out += (try? stream.compress(chunk, flush: false)) ?? [] }
    out += (try? stream.finish(chunk)) ?? []
    return out
  }()

  /// The bearer token a request carried, if any.
  static func token(of request: HTTPRequest) -> String? {
    guard let value = request.headers["Authorization"] else { return nil }
    for prefix in ["Bearer ", "token "] where value.hasPrefix(prefix) {
      return String(value.dropFirst(prefix.count))
    }
    return value
  }

  /// Edits each item of a search body, or each week of a history body.
  static func editItems(_ body: [UInt8], _ edit: ([UInt8], Int) -> [UInt8]) -> [UInt8] {
    editList(body) { items in items.enumerated().map { edit($0.element, $0.offset) } }
  }

  /// Edits the item list of a search body or the week list of a history body as a whole.
  static func editList(_ body: [UInt8], _ edit: ([[UInt8]]) -> [[UInt8]]) -> [UInt8] {
    if let (head, items, tail) = JSONSurgery.searchItems(body) {
      return JSONSurgery.join(head, edit(items), tail)
    }
    if let weeks = JSONSurgery.arrayItems(body) {
      return JSONSurgery.join([UInt8(ascii: "[")], edit(weeks), [UInt8(ascii: "]")])
    }
    return body
  }

  /// A search body keeping one in `keep` items, marked `incomplete_results: true`.
  static func shortened(_ body: [UInt8], keep: Int) -> [UInt8] {
    guard let (head, items, tail) = JSONSurgery.searchItems(body), !items.isEmpty else { return body }
    let kept = Array(items.prefix(max(1, items.count / keep)))
    let marked = JSONSurgery.replacing("incomplete_results", in: head, with: Array("true".utf8))
    return JSONSurgery.join(marked, kept, tail)
  }

  /// A chunked body from `pieces`, with an optional pause before each one after the first.
  static func streamed(_ pieces: [[UInt8]], pause: Duration?) -> HTTPBody {
    let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    if let pause {
      let task = Task {
        for (i, piece) in pieces.enumerated() {
          if i > 0 { try await Task.sleep(for: pause) }
          continuation.yield(piece)
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    } else {
      for piece in pieces { continuation.yield(piece) }
      continuation.finish()
    }
    return .stream(stream)
  }

  /// FNV-1a of the text's bytes: the same in every process, unlike `hashValue`.
  static func stableHash(_ text: String) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
    return h
  }

  private static func hex4(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
  }
}
