import CCurl
import HTTP

/// One request attached to an easy handle. Lives only on the loop thread.
final class Transfer {
  /// The caller's side of the request.
  let ticket: RequestTicket
  /// The easy handle, owned by the loop's pool (an opaque pointer only libcurl dereferences).
  let easy: UnsafeMutableRawPointer
  /// Body size limit for this request.
  let limit: Int
  /// Set when the body outgrew `limit`, so the write error maps to `tooLarge`.
  private(set) var exceededLimit = false
  /// Body bytes received so far.
  var body: [UInt8] = []
  /// Headers of the latest (final) response head.
  private(set) var headers = HTTPHeaders()
  /// Reason phrase of the latest status line, empty for HTTP/2.
  private(set) var reasonPhrase = ""
  private var reserved = false
  /// Owned by this transfer and freed in deinit, after the handle was reset and no longer uses it.
  private var headerList: UnsafeMutablePointer<curl_slist>?
  /// libcurl writes its detailed error message here; allocated and freed by this transfer.
  let errorBuffer: UnsafeMutablePointer<CChar>

  init(ticket: RequestTicket, easy: UnsafeMutableRawPointer, limit: Int) {
    self.ticket = ticket
    self.easy = easy
    self.limit = limit
    errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
    errorBuffer.initialize(to: 0)
  }

  deinit {
    if let headerList { curl_slist_free_all(headerList) }
    errorBuffer.deallocate()
  }

  /// Sets every option for this request; returns an error if libcurl refuses one.
  func configure(_ configuration: CurlClientConfiguration) -> ClientError? {
    let request = ticket.request
    let easy = easy
    var failed: CURLcode = CURLE_OK
    func check(_ code: CURLcode) { if code != CURLE_OK && failed == CURLE_OK { failed = code } }
    func long(_ option: CURLoption, _ value: Int) { check(ccurl_easy_setopt_long(easy, option, value)) }
    // libcurl copies string options (all but POSTFIELDS), so the temporary C strings may die after each call.
    func string(_ option: CURLoption, _ value: String) {
      check(ccurl_easy_setopt_string(easy, option, value))
    }

    string(CURLOPT_URL, request.url)
    long(CURLOPT_NOSIGNAL, 1)
    string(CURLOPT_PROTOCOLS_STR, "http,https")
    string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    long(CURLOPT_FOLLOWLOCATION, configuration.followRedirects ? 1 : 0)
    long(CURLOPT_MAXREDIRS, 10)
    long(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
    // Waiting for a connection to learn whether it multiplexes only pays off where HTTP/2 can be
    // negotiated (TLS). Over plain http it would queue every request behind the first response's
    // head, so one hung answer would stall the whole host.
    if request.url.utf8.prefix(6).map({ $0 | 0x20 }) == Array("https:".utf8) { long(CURLOPT_PIPEWAIT, 1) }
    string(CURLOPT_ACCEPT_ENCODING, "")
    long(CURLOPT_SSL_VERIFYPEER, 1)
    long(CURLOPT_SSL_VERIFYHOST, 2)
    if let caFile = configuration.caFile { string(CURLOPT_CAINFO, caFile) }
    long(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
    long(CURLOPT_TIMEOUT_MS, (request.timeout ?? configuration.totalTimeout).curlMilliseconds)
    check(ccurl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))
    string(CURLOPT_USERAGENT, configuration.userAgent)
    // The buffer lives as long as this transfer, which outlives the handle's use for this request.
    check(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
    // Unretained: the loop's active table keeps this transfer alive while the handle is attached,
    // and callbacks run only inside curl_multi_perform on the loop thread.
    let me = Unmanaged.passUnretained(self).toOpaque()
    check(ccurl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, Transfer.onBody))
    check(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
    check(ccurl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, Transfer.onHeader))
    check(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me))

    switch request.method {
    case .get: long(CURLOPT_HTTPGET, 1)
    case .head: long(CURLOPT_NOBODY, 1)
    case .post where request.body.isEmpty:
      // An empty copied body; a bare CURLOPT_POST would read the body from stdin.
      long(CURLOPT_POSTFIELDSIZE, 0)
      string(CURLOPT_COPYPOSTFIELDS, "")
    case .post: break
    default: string(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
    }
    // A body goes with methods that take one; with GET or HEAD it would turn the request into a POST.
    if !request.body.isEmpty, request.method != .get, request.method != .head {
      // The size first: COPYPOSTFIELDS copies exactly that many bytes, so the array may go after the call.
      check(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
      request.body.withUnsafeBytes {
        check(ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress))
      }
    }

    for field in request.headers {
      // "Name;" is libcurl's spelling of a header with an empty value.
      let line = field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value
      guard let list = curl_slist_append(headerList, line) else { return .other("out of memory") }
      headerList = list
    }
    if let headerList { check(ccurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)) }

    if failed != CURLE_OK {
      return .other("curl option refused: " + String(cString: curl_easy_strerror(failed)))
    }
    return nil
  }

  /// Appends body bytes; a short count makes libcurl abort with CURLE_WRITE_ERROR.
  private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
    if bytes.count > limit - body.count {
      exceededLimit = true
      return 0
    }
    if !reserved {
      reserved = true
      var length: curl_off_t = -1
      if ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length > 0 {
        body.reserveCapacity(Int(min(length, curl_off_t(limit))))
      }
    }
    body.append(contentsOf: bytes)
    return bytes.count
  }

  /// Collects one header line; a status line starts a new response head (1xx, redirects).
  private func receiveHeader(_ bytes: UnsafeRawBufferPointer) {
    var end = bytes.count
    while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
    guard end > 0 else { return }
    // Safe: a view into the callback buffer, used only within this call.
    let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
    if line.starts(with: "HTTP/".utf8) {
      headers = HTTPHeaders()
      // "HTTP/1.1 200 OK": the reason phrase follows the second space.
      let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
      reasonPhrase = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
      return
    }
    guard let colon = line.firstIndex(of: 0x3A) else { return }
    let name = String(decoding: line[..<colon], as: UTF8.self)
    var start = colon + 1
    while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
    var stop = end
    while stop > start, line[stop - 1] == 0x20 || line[stop - 1] == 0x09 { stop -= 1 }
    headers.add(name: name, value: String(decoding: line[start..<stop], as: UTF8.self))
  }

  private static let onBody: ccurl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    // Safe: userdata is this transfer, kept alive by the loop's active table during the callback.
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    // Safe: libcurl guarantees size * count readable bytes at data for the duration of the call.
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
  }

  private static let onHeader: ccurl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    // Safe: userdata is this transfer, kept alive by the loop's active table during the callback.
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    // Safe: libcurl guarantees size * count readable bytes at data for the duration of the call.
    transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
  }
}
