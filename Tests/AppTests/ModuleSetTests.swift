import Clocks
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import App

/// The page's ES modules under one fingerprinted folder: which URL answers with which file.
@Suite("Module set", .timeLimit(.minutes(6)))
struct ModuleSetTests {
  /// A static folder holding `files` (name -> text), removed after `body`.
  static func withFolder<T>(_ files: [String: String], _ body: (String) throws -> T) throws -> T {
    let folder = URL(fileURLWithPath: try ScratchFolder.make("modules"))
    defer { try? FileManager.default.removeItem(at: folder) }
    for (name, text) in files {
      try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }
    return try body(folder.path)
  }

  static func set(_ root: String) throws -> ModuleSet {
    try ModuleSet(
      files: ["cards.js", "feed.js"], entries: ["feed.js"],
      staticFiles: try StaticFiles(root: root, time: .system))
  }

  @Test func eachModuleOfTheSetResolvesToItsContentHashedPath() throws {
    try Self.withFolder(["cards.js": "export const A = 1;", "feed.js": "import './cards.js';"]) { root in
      let files = try StaticFiles(root: root, time: .system)
      let modules = try Self.set(root)
      let folder = "/static/m/\(modules.name)/"
      expectEqual(modules.name.utf8.count, 8)
      expectEqual(modules.entryURLs, [folder + "feed.js"])
      expectEqual(modules.importedURLs, [folder + "cards.js"])
      expectEqual(
        modules.resolve(Substring(folder + "cards.js")),
        files.hashedPath(for: "cards.js", urlPrefix: "/static"))
      expectEqual(
        modules.resolve(Substring(folder + "feed.js")), files.hashedPath(for: "feed.js", urlPrefix: "/static")
      )
    }
  }

  @Test func anotherSetGetsThePlainFilesAndAnythingElseNothing() throws {
    try Self.withFolder(["cards.js": "a", "feed.js": "b", "app.css": "c"]) { root in
      let modules = try Self.set(root)
      let other = modules.name == "00000000" ? "00000001" : "00000000"
      expectEqual(modules.resolve(Substring("/static/m/\(other)/cards.js")), "/static/cards.js")
      for path in [
        "/static/m/\(modules.name)/app.css", "/static/m/\(modules.name)/../feed.js", "/static/m/XYZ/feed.js",
        "/static/m/0000000/feed.js", "/static/m/\(modules.name)", "/static/feed.js", "/static/m/",
        "/static/m/\(modules.name)/feed.js/x",
      ] {
        expectEqual(modules.resolve(Substring(path)), nil, "\(path)")
      }
    }
  }

  @Test func theSetsNameChangesWhenAnyModuleChanges() throws {
    let first = try Self.withFolder(["cards.js": "a", "feed.js": "b"]) { try Self.set($0).name }
    let again = try Self.withFolder(["cards.js": "a", "feed.js": "b"]) { try Self.set($0).name }
    let cards = try Self.withFolder(["cards.js": "a2", "feed.js": "b"]) { try Self.set($0).name }
    let feed = try Self.withFolder(["cards.js": "a", "feed.js": "b2"]) { try Self.set($0).name }
    let swapped = try Self.withFolder(["cards.js": "b", "feed.js": "a"]) { try Self.set($0).name }
    expectEqual(first, again)
    expectEqual(Set([first, cards, feed, swapped]).count, 4)
  }

  @Test func aMissingModuleIsNamed() throws {
    try Self.withFolder(["feed.js": "b"]) { root in
      let error = #expect(throws: ModuleSet.MissingFile.self) { try Self.set(root) }
      expectEqual(error?.name, "cards.js")
    }
  }
}
