import Clocks
import Foundation
import HTTP
import HTTPServer
import TestSupport
import Testing

/// A temporary static root with a few files and a symlink that escapes it.
struct StaticFixture {
  let root: String

  init() throws {
    let base = try ScratchFolder.make("static")
    root = base + "/public"
    let fm = FileManager.default
    try fm.createDirectory(atPath: root + "/css", withIntermediateDirectories: true)
    try "body{color:red}".write(toFile: root + "/css/app.css", atomically: true, encoding: .utf8)
    try "<h1>home</h1>".write(toFile: root + "/index.html", atomically: true, encoding: .utf8)
    try "secret".write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: root + "/logo.png"))
    try "x".write(toFile: root + "/a b.txt", atomically: true, encoding: .utf8)
    try fm.createSymbolicLink(atPath: root + "/escape.txt", withDestinationPath: base + "/secret.txt")
    try fm.createSymbolicLink(atPath: root + "/inside.css", withDestinationPath: root + "/css/app.css")
  }

  func get(_ files: StaticFiles, _ target: String, headers: HTTPHeaders = [:], method: HTTPMethod = .get)
    async
    -> (HTTPResponse, String)
  {
    var h = headers
    h.add(name: "Host", value: "a")
    let response = await files.response(for: HTTPRequest(method: method, target: target, headers: h))
    guard case .bytes(let body) = response.body else { return (response, "") }
    return (response, String(decoding: body, as: UTF8.self))
  }
}

@Suite(.timeLimit(.minutes(3))) struct StaticFilesTests {
  @Test func servesFilesWithTypesAndValidators() async throws {
    let fixture = try StaticFixture()
    let files = try StaticFiles(root: fixture.root, time: .system)
    let (css, body) = await fixture.get(files, "/css/app.css")
    expectEqual(css.status, .ok)
    expectEqual(body, "body{color:red}")
    expectEqual(css.headers["Content-Type"], "text/css; charset=utf-8")
    expectEqual(css.headers["Cache-Control"], "max-age=300")
    expectTrue(css.headers["ETag"] != nil)
    expectTrue(css.headers["Last-Modified"].flatMap(HTTPDate.parse) != nil)
    await expectEqual(fixture.get(files, "/logo.png").0.headers["Content-Type"], "image/png")
    await expectEqual(fixture.get(files, "/").1, "<h1>home</h1>")
    await expectEqual(fixture.get(files, "/a%20b.txt").1, "x")
    await expectEqual(fixture.get(files, "/./css//app.css").1, "body{color:red}")
    await expectEqual(fixture.get(files, "/inside.css").0.status, .ok)
    await expectEqual(fixture.get(files, "/css/app.css", method: .post).0.status, .methodNotAllowed)
  }

  @Test func aRootThatIsNoFolderIsAConfigurationErrorNotAnAnswer() throws {
    let fixture = try StaticFixture()
    #expect(throws: StaticFilesError.missingRoot(fixture.root + "/nope")) {
      try StaticFiles(root: fixture.root + "/nope", time: .system)
    }
    #expect(throws: StaticFilesError.notAFolder(fixture.root + "/index.html")) {
      try StaticFiles(root: fixture.root + "/index.html", time: .system)
    }
    expectEqual("\(StaticFilesError.missingRoot("/x"))", "static root /x does not exist")
  }

  @Test func conditionalRequestsGet304() async throws {
    let fixture = try StaticFixture()
    let files = try StaticFiles(root: fixture.root, time: .system)
    let (first, _) = await fixture.get(files, "/css/app.css")
    let etag = try #require(first.headers["ETag"])
    let modified = try #require(first.headers["Last-Modified"])
    await expectEqual(
      fixture.get(files, "/css/app.css", headers: ["If-None-Match": etag]).0.status, .notModified)
    await expectEqual(
      fixture.get(files, "/css/app.css", headers: ["If-None-Match": "\"x\", W/\(etag)"]).0.status,
      .notModified)
    await expectEqual(
      fixture.get(files, "/css/app.css", headers: ["If-None-Match": "\"other\""]).0.status, .ok)
    await expectEqual(
      fixture.get(files, "/css/app.css", headers: ["If-Modified-Since": modified]).0.status, .notModified)
    let past = HTTPDate.format(epochSeconds: (HTTPDate.parse(modified) ?? 0) - 10)
    await expectEqual(fixture.get(files, "/css/app.css", headers: ["If-Modified-Since": past]).0.status, .ok)
    // If-None-Match wins over If-Modified-Since.
    await expectEqual(
      fixture.get(
        files, "/css/app.css", headers: ["If-None-Match": "\"other\"", "If-Modified-Since": modified]
      )
      .0.status, .ok)
  }

  static let escapes = [
    "/../secret.txt", "/css/../../secret.txt", "/%2e%2e/secret.txt", "/css%2fapp.css", "/css%2Fapp.css",
    "/escape.txt", "/css/app.css%00", "/%00", "/..%5csecret.txt", "/missing.css", "/css", "/%zz",
    "/css/app.css/", "/x/../css/app.css",
  ]

  @Test(arguments: escapes)
  func pathsOutsideTheRootAre404(_ target: String) async throws {
    let fixture = try StaticFixture()
    let files = try StaticFiles(root: fixture.root, time: .system)
    let (response, body) = await fixture.get(files, target)
    expectEqual(response.status, .notFound)
    expectTrue(!body.contains("secret"))
  }

  @Test func hashedNamesAreImmutable() async throws {
    let fixture = try StaticFixture()
    let files = try StaticFiles(root: fixture.root, time: .system)
    let hashed = try #require(files.hashedPath(for: "css/app.css", urlPrefix: "/static"))
    expectTrue(hashed.hasPrefix("/static/css/app."))
    expectTrue(hashed.hasSuffix(".css"))
    let (response, body) = await fixture.get(files, hashed.replacingOccurrences(of: "/static", with: ""))
    expectEqual(response.status, .ok)
    expectEqual(body, "body{color:red}")
    expectEqual(response.headers["Cache-Control"], "max-age=31536000, immutable")
    let prefixed = await files.response(
      for: HTTPRequest(method: .get, target: hashed, headers: ["Host": "a"]), urlPrefix: "/static")
    expectEqual(prefixed.status, .ok)
    await expectEqual(fixture.get(files, "/css/app.00000000.css").0.status, .notFound)
    expectEqual(files.hashedPath(for: "missing.css", urlPrefix: "/static"), nil)
    expectEqual(files.hashedPath(for: "../secret.txt", urlPrefix: "/static"), nil)
  }

  @Test func changedFilesAreReloaded() async throws {
    let fixture = try StaticFixture()
    let clock = ManualClock()
    let files = try StaticFiles(root: fixture.root, time: clock.time)
    await expectEqual(fixture.get(files, "/css/app.css").1, "body{color:red}")
    try "body{color:blue;margin:0}".write(
      toFile: fixture.root + "/css/app.css", atomically: true, encoding: .utf8)
    clock.advance(1)  // files are checked on disk again once a second
    await expectEqual(fixture.get(files, "/css/app.css").1, "body{color:blue;margin:0}")
    try FileManager.default.removeItem(atPath: fixture.root + "/css/app.css")
    clock.advance(1)
    await expectEqual(fixture.get(files, "/css/app.css").0.status, .notFound)
  }

  @Test func missingRootThrows() {
    #expect(throws: (any Error).self) {
      try StaticFiles(root: "/nonexistent/\(UUID().uuidString)", time: .system)
    }
  }

  @Test func overTheWireHeadAnd304() async throws {
    let fixture = try StaticFixture()
    let files = try StaticFiles(root: fixture.root, time: .system)
    try await withServer(handler: { request, _ in await files.response(for: request) }) { port in
      let client = try RawSocketClient(port: port)
      let full = try client.request("GET", "/css/app.css")
      expectEqual(full.text, "body{color:red}")
      let head = try client.request("HEAD", "/css/app.css")
      expectEqual(head.headers["Content-Length"], "15")
      expectTrue(head.body.isEmpty)
      let etag = full.headers["ETag"] ?? ""
      let cached = try client.request("GET", "/css/app.css", headers: [("If-None-Match", etag)])
      expectEqual(cached.status, 304)
      expectTrue(cached.body.isEmpty)
      try expectEqual(client.request("GET", "/%2e%2e/secret.txt").status, 404)
    }
  }
}

@Suite(.timeLimit(.minutes(3))) struct StaticBigFileTests {
  @Test func bigFilesAreReadPerRequestWhole() async throws {
    let fixture = try StaticFixture()
    let big = String(repeating: "0123456789abcdef", count: 4096)
    try big.write(toFile: fixture.root + "/big.txt", atomically: true, encoding: .utf8)
    let files = try StaticFiles(root: fixture.root, memoryCacheMaxFileBytes: 1024, time: .system)
    let (first, body) = await fixture.get(files, "/big.txt")
    expectEqual(first.status, .ok)
    expectEqual(body, big)
    let (again, againBody) = await fixture.get(files, "/big.txt")
    expectEqual(again.headers["ETag"], first.headers["ETag"])
    expectEqual(againBody, big)
    let (small, smallBody) = await fixture.get(files, "/css/app.css")
    expectEqual(small.status, .ok)
    expectEqual(smallBody, "body{color:red}")
  }
}
