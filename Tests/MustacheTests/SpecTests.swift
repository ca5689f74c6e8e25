import Foundation
import Mustache
import Testing

/// A JSON value from the spec files, decoded without NSNumber guesswork.
enum JSONValue: Decodable {
  case bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue]),
    null

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? c.decode(Int.self) {
      self = .int(i)
    } else if let d = try? c.decode(Double.self) {
      self = .double(d)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  var mustache: MustacheValue {
    switch self {
    case .bool(let b): return .bool(b)
    case .int(let i): return .int(i)
    case .double(let d): return .double(d)
    case .string(let s): return .string(s)
    case .array(let a): return .list(a.map(\.mustache))
    case .object(let o): return .object(o.mapValues(\.mustache))
    case .null: return .null
    }
  }
}

/// One case of the official spec, or the reason the spec could not be read.
struct SpecCase: Sendable, CustomTestStringConvertible {
  let file: String
  let name: String
  let template: String
  let partials: [String: String]
  let data: MustacheValue
  let expected: String
  let loadError: String?

  var testDescription: String { "\(file): \(name)" }

  static let modules = [
    "comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance",
  ]

  /// The spec folder: the package root (the first folder above this file holding Package.swift), then
  /// ../shared/mustache-spec.
  static var folder: URL {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/"
      && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path)
    {
      dir = dir.deletingLastPathComponent()
    }
    return dir.deletingLastPathComponent().appendingPathComponent("shared/mustache-spec")
  }

  private struct File: Decodable {
    struct Test: Decodable {
      let name: String
      let template: String
      let expected: String
      let data: JSONValue
      let partials: [String: String]?
    }
    let tests: [Test]
  }

  static func all() -> [SpecCase] {
    var cases: [SpecCase] = []
    for module in modules {
      let url = folder.appendingPathComponent(module + ".json")
      do {
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        if file.tests.isEmpty { throw CocoaError(.fileReadCorruptFile) }
        for t in file.tests {
          cases.append(
            SpecCase(
              file: module, name: t.name, template: t.template, partials: t.partials ?? [:],
              data: t.data.mustache, expected: t.expected, loadError: nil))
        }
      } catch {
        cases.append(
          SpecCase(
            file: module, name: "(unreadable)", template: "", partials: [:], data: .null, expected: "",
            loadError: "cannot read \(url.path): \(error)"))
      }
    }
    return cases
  }
}

@Suite(.timeLimit(.minutes(2))) struct SpecTests {
  @Test(arguments: SpecCase.all())
  func specCase(_ c: SpecCase) throws {
    if let loadError = c.loadError {
      Issue.record("Mustache spec missing: \(loadError)")
      return
    }
    let library = try TemplateLibrary(templates: c.partials)
    let template = try Template(c.template, name: c.name)
    let output = template.render(c.data, partials: library)
    #expect(output == c.expected, "\(c.file): \(c.name)")
  }

  @Test func everyModuleIsPresent() {
    let cases = SpecCase.all()
    #expect(cases.allSatisfy { $0.loadError == nil })
    for module in SpecCase.modules {
      #expect(cases.contains { $0.file == module }, "no cases from \(module)")
    }
    #expect(cases.count > 150)
  }
}
