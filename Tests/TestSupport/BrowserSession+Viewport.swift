import Foundation

extension BrowserSession {
  /// Sets the viewport (the page's CSS width and height) below what a window can be: Chromium through
  /// DevTools device metrics (a phone: touch, 2x pixels), Firefox through WebDriver BiDi's
  /// `browsingContext.setViewport`, which keeps the size when its socket closes. MiniBrowser has neither:
  /// it throws `.unavailable`.
  public func setViewport(width: Int, height: Int) async throws {
    switch engine {
    case .chromium:
      try await cdp(
        "Emulation.setDeviceMetricsOverride",
        [
          "width": .number(Double(width)), "height": .number(Double(height)), "deviceScaleFactor": 2,
          "mobile": true,
        ])
    case .firefox:
      guard let url = webSocketURL else {
        throw WebDriverError.unavailable("geckodriver gave no webSocketUrl: WebDriver BiDi is off")
      }
      let context = try await command("GET", "/window").string ?? ""
      let message: WebDriverJSON = [
        "id": 1, "method": "browsingContext.setViewport",
        "params": [
          "context": .string(context),
          "viewport": ["width": .number(Double(width)), "height": .number(Double(height))],
        ],
      ]
      let body = try message.serialized()
      let reply = try await onThread { try BiDiSocket.exchange(url: url, message: [UInt8](body)) }
      guard reply.contains("\"success\"") else {
        throw WebDriverError.unexpectedReply(command: "browsingContext.setViewport", reply: reply)
      }
    case .webkit:
      throw WebDriverError.unavailable("MiniBrowser has no viewport emulation")
    }
  }
}

/// Just enough of a WebSocket client (RFC 6455) for one WebDriver BiDi command: the upgrade, one masked
/// text frame out, and text frames in until the command's answer.
enum BiDiSocket {
  /// Sends `message` to `url` ("ws://127.0.0.1:PORT/session/ID") and returns the reply to id 1.
  static func exchange(url: String, message: [UInt8]) throws -> String {
    guard url.hasPrefix("ws://"), let slash = url.dropFirst(5).firstIndex(of: "/") else {
      throw RawClientError("not a ws:// URL: \(url)")
    }
    let authority = url[url.index(url.startIndex, offsetBy: 5)..<slash]
    let path = String(url[slash...])
    guard let colon = authority.lastIndex(of: ":"),
      let port = Int(authority[authority.index(after: colon)...])
    else { throw RawClientError("no port in \(url)") }
    let client = try RawSocketClient(
      host: String(authority[..<colon]), port: port, timeout: .seconds(10))
    defer { client.close() }
    let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    try client.send(
      "GET \(path) HTTP/1.1\r\nHost: \(authority)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n")
    var received: [UInt8] = []
    var headerEnd: Int? = nil
    while headerEnd == nil {
      received += try client.readSome()
      headerEnd = received.headerEnd
    }
    let end = headerEnd ?? received.count
    guard String(decoding: received[..<end], as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
      throw RawClientError("no WebSocket upgrade: \(String(decoding: received, as: UTF8.self))")
    }
    var pending = Array(received[end...])
    try client.send(frame(message))
    // Events may come before the answer; each frame is read whole.
    for _ in 0..<50 {
      while true {
        if let (payload, used) = parse(pending) {
          pending.removeFirst(used)
          let text = String(decoding: payload, as: UTF8.self)
          if text.contains("\"id\":1") { return text }
          break
        }
        pending += try client.readSome()
      }
    }
    throw RawClientError("no answer to the BiDi command")
  }

  /// One final, masked text frame.
  static func frame(_ payload: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x81]
    if payload.count < 126 {
      out.append(0x80 | UInt8(payload.count))
    } else if payload.count < 65536 {
      out += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
    } else {
      out.append(0x80 | 127)
      out += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xff) }
    }
    let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
    out += mask
    out += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    return out
  }

  /// A whole unmasked server frame at the start of `bytes`: its payload and the bytes it used.
  static func parse(_ bytes: [UInt8]) -> ([UInt8], Int)? {
    guard bytes.count >= 2 else { return nil }
    var length = Int(bytes[1] & 0x7f)
    var offset = 2
    if length == 126 {
      guard bytes.count >= 4 else { return nil }
      length = Int(bytes[2]) << 8 | Int(bytes[3])
      offset = 4
    } else if length == 127 {
      guard bytes.count >= 10 else { return nil }
      length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
      offset = 10
    }
    guard length >= 0, bytes.count >= offset + length else { return nil }
    return (Array(bytes[offset..<(offset + length)]), offset + length)
  }
}

extension [UInt8] {
  /// Where the bytes after the first blank line (CR LF CR LF) start, or nil before it has arrived.
  fileprivate var headerEnd: Int? {
    guard count >= 4 else { return nil }
    for i in 0...(count - 4)
    where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 {
      return i + 4
    }
    return nil
  }
}
