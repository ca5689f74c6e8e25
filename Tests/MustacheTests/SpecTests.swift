import Foundation
import Mustache
import TestSupport
import Testing

extension SchemaJSON {
  /// The same value for a template to render (JSON keeps integers and floating-point numbers apart).
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

  /// A spec file's problem that the JSON parser does not see.
  struct SpecFileError: Error, CustomStringConvertible {
    let description: String
  }

  static func all() -> [SpecCase] {
    var cases: [SpecCase] = []
    for module in modules {
      do {
        // Not `SharedData.path`: cases are made before any test runs, and the test that meets a
        // missing file asks it then (skipped, or failed under CI=true).
        let path = try SharedData.directory() + "/mustache-spec/\(module).json"
        let tests =
          try SchemaJSON.parse(Array(Data(contentsOf: URL(fileURLWithPath: path))))["tests"]?.array ?? []
        if tests.isEmpty { throw SpecFileError(description: "\(path) holds no tests") }
        for t in tests {
          guard let name = t["name"]?.string, let template = t["template"]?.string,
            let expected = t["expected"]?.string, let data = t["data"]
          else {
            throw SpecFileError(description: "a test in \(path) lacks name, template, expected or data")
          }
          let partials = t["partials"]?.object ?? [:]
          let partialTexts = partials.compactMapValues(\.string)
          guard partialTexts.count == partials.count else {
            throw SpecFileError(description: "\(name) in \(path) has a partial that is not text")
          }
          cases.append(
            SpecCase(
              file: module, name: name, template: template, partials: partialTexts, data: data.mustache,
              expected: expected, loadError: nil))
        }
      } catch {
        cases.append(
          SpecCase(
            file: module, name: "(unreadable)", template: "", partials: [:], data: .null, expected: "",
            loadError: "cannot read the \(module) spec: \(error)"))
      }
    }
    return cases
  }
}

@Suite(.timeLimit(.minutes(2))) struct SpecTests {
  @Test(arguments: SpecCase.all())
  func specCase(_ c: SpecCase) throws {
    if let loadError = c.loadError {
      _ = try SharedData.path("mustache-spec/\(c.file).json")
      Issue.record("Mustache spec unreadable: \(loadError)")
      return
    }
    let library = try TemplateLibrary(templates: c.partials)
    let template = try Template(c.template, name: c.name)
    let output = template.render(c.data, partials: library)
    expectEqual(output, c.expected, "\(c.file): \(c.name)")
  }

  @Test func everyModuleIsPresent() throws {
    for module in SpecCase.modules { _ = try SharedData.path("mustache-spec/\(module).json") }
    let cases = SpecCase.all()
    expectTrue(cases.allSatisfy { $0.loadError == nil })
    for module in SpecCase.modules {
      expectTrue(cases.contains { $0.file == module }, "no cases from \(module)")
    }
    expectTrue(cases.count > 150)
  }
}
