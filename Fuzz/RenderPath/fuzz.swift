// The render path on arbitrary upstream bodies: GitHub decoding, paging, the results fragment and the
// star history, through the app's own handler with a GitHub that answers with the fuzzer's bytes.
import Clocks
import CurlClient
import Dispatch
import HTTP
import HTTPServer
import Synchronization

// The app's handler is internal (tests and this fuzz target reach it; script/fuzz builds with
// -enable-testing).
@testable import App

/// The bodies the scripted GitHub answers with: the input up to its first NUL byte is the search
/// page, the rest the star history.
let bodies = Mutex<(search: [UInt8], history: [UInt8])>(([], []))

struct FuzzTransport: HTTPClientTransport {
  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    let (search, history) = bodies.withLock { $0 }
    return RenderPathUpstream.answer(request, search: search, history: history)
  }
}

/// The app's token: inputs that hold it whole (in any form the redactor knows) must not show it.
/// A token the input itself corrupts (a byte changed inside it) is no longer the token.
let token = "ghp_FuzzToken000000000000000000000000000"

/// One app for the whole run (templates are read from the repository, where `script/fuzz` runs).
let app: RepoScrollApp = {
  var configuration = AppConfiguration()
  configuration.githubToken = token
  do {
    return try RepoScrollApp(
      configuration: configuration, transport: FuzzTransport(), time: .system, log: { _ in })
  } catch {
    fatalError("cannot build the app: \(error)")
  }
}()

/// Runs counted, so that each input uses a new query and repository (nothing from the cache).
let runs = Atomic<Int>(0)

/// The status and whole body of GET `target`, waited for on this (non-async) thread.
func get(_ target: String) -> (Int, [UInt8]) {
  let result = Mutex<(Int, [UInt8])>((0, []))
  let done = DispatchSemaphore(value: 0)
  Task {
    var answer = (0, [UInt8]())
    do {
      let response = try await app.handler(
        HTTPRequest(method: .get, target: target), RequestContext(requestID: "fuzz"))
      switch response.body {
      case .bytes(let bytes): answer = (response.status.code, bytes)
      case .stream(let stream):
        var all: [UInt8] = []
        for try await chunk in stream { all += chunk }
        answer = (response.status.code, all)
      }
    } catch {
      answer = (-1, Array("\(error)".utf8))
    }
    result.withLock { $0 = answer }
    done.signal()
  }
  done.wait()
  return result.withLock { $0 }
}

/// 200, valid UTF-8, no control bytes but tab and newline, cards opened and closed in pairs; returns
/// the card count.
func check(_ answer: (Int, [UInt8]), _ what: String) -> Int {
  let (status, body) = answer
  expect(status == 200, "\(what) answered \(status): \(String(decoding: body.prefix(200), as: UTF8.self))")
  expect(String(validating: body, as: UTF8.self) != nil, "\(what) is not valid UTF-8")
  expect(!body.contains { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A) || $0 == 0x7F }, "control byte in \(what)")
  let html = String(decoding: body, as: UTF8.self)
  let opened = html.components(separatedBy: "<article ").count - 1
  expect(opened == html.components(separatedBy: "</article>").count - 1, "unbalanced cards in \(what)")
  expect(!html.contains(token), "the token reached \(what)")
  return opened
}

/// libFuzzer entry.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  let split = input.firstIndex(of: 0) ?? input.endIndex
  bodies.withLock { $0 = (Array(input[..<split]), Array(input[min(split + 1, input.endIndex)...])) }
  let run = runs.add(1, ordering: .relaxed).newValue
  let cards = check(get("/fragments/results?q=run\(run)&after=0"), "fragment")
  expect(cards <= 20, "\(cards) cards in one batch")
  _ = check(get("/fragments/stars/o/r\(run)"), "stars")
  return 0
}
