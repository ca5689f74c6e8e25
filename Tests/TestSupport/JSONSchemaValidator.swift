#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small OpenAPI 3.0 / JSON Schema checker, enough for the shared GitHub pieces: type (also arrays of
/// types), nullable, required, properties, items, enum, min/max items, minimum/maximum, loose formats
/// (date-time, uri), anyOf/oneOf/allOf, and `$ref` across the files of one folder.
public struct JSONSchemaValidator: Sendable {
  /// Loaded documents by file name.
  public let documents: [String: SchemaJSON]
  /// The document `#/...` references fall back to (GitHub's assembled extract).
  public let fallbackDocument: String

  /// A load failure.
  public struct LoadError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String
  }

  /// Loads every `*.json` file of `directory`.
  public init(directory: String, fallbackDocument: String = "api.github.com.extract.json") throws(LoadError) {
    guard let dir = opendir(directory) else { throw LoadError(description: "cannot open \(directory)") }
    defer { closedir(dir) }
    var docs: [String: SchemaJSON] = [:]
    while let entry = readdir(dir) {
      // d_name is a fixed-size NUL-terminated C array inside the entry, valid until the next readdir.
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      guard name.hasSuffix(".json") else { continue }
      let bytes = try JSONSchemaValidator.readFile(directory + "/" + name)
      do {
        docs[name] = try SchemaJSON.parse(bytes)
      } catch {
        throw LoadError(description: "\(name): \(error)")
      }
    }
    documents = docs
    self.fallbackDocument = fallbackDocument
  }

  /// Validates `instance` against the schema at `pointer` (JSON Pointer, e.g. "" or
  /// "/get/responses/200/content/application~1json/schema") in `file`. Returns the errors found.
  public func validate(_ instance: SchemaJSON, file: String, pointer: String = "") -> [String] {
    guard let doc = documents[file] else { return ["no schema file \(file)"] }
    guard let schema = resolve(pointer, in: doc) else { return ["no schema at \(file)#\(pointer)"] }
    var errors: [String] = []
    check(instance, schema, file: file, path: "$", errors: &errors, depth: 0)
    return errors
  }

  private func check(
    _ v: SchemaJSON, _ s: SchemaJSON, file: String, path: String, errors: inout [String], depth: Int
  ) {
    guard depth < 64 else {
      errors.append("\(path): schema recursion too deep")
      return
    }
    if let ref = s["$ref"]?.string {
      guard let (target, targetFile) = follow(ref, from: file) else {
        errors.append("\(path): unresolved $ref \(ref)")
        return
      }
      check(v, target, file: targetFile, path: path, errors: &errors, depth: depth + 1)
      return
    }
    if v == .null && s["nullable"]?.bool == true { return }
    if let all = s["allOf"]?.array {
      for sub in all { check(v, sub, file: file, path: path, errors: &errors, depth: depth + 1) }
    }
    if let any = s["anyOf"]?.array {
      let ok = any.contains { sub in
        var e: [String] = []
        check(v, sub, file: file, path: path, errors: &e, depth: depth + 1)
        return e.isEmpty
      }
      if !ok { errors.append("\(path): matches none of anyOf") }
    }
    if let one = s["oneOf"]?.array {
      let n = one.filter { sub in
        var e: [String] = []
        check(v, sub, file: file, path: path, errors: &e, depth: depth + 1)
        return e.isEmpty
      }.count
      if n != 1 { errors.append("\(path): matches \(n) of oneOf, expected 1") }
    }
    if let type = s["type"] {
      let types = type.array?.compactMap(\.string) ?? [type.string].compactMap { $0 }
      if !types.isEmpty && !types.contains(where: { matchesType(v, $0) }) {
        errors.append("\(path): expected \(types.joined(separator: "|")), got \(kind(v))")
        return
      }
    }
    if let e = s["enum"]?.array, !e.contains(v) { errors.append("\(path): \(v) not in enum") }
    if case .string(let str) = v, let format = s["format"]?.string {
      if format == "date-time" && !JSONSchemaValidator.looksLikeDateTime(str) {
        errors.append("\(path): '\(str)' is not a date-time")
      }
      if format == "uri" && !JSONSchemaValidator.looksLikeURI(str) {
        errors.append("\(path): '\(str)' is not a uri")
      }
    }
    if let min = s["minimum"], let n = number(v), let m = number(min), n < m {
      errors.append("\(path): \(n) < minimum \(m)")
    }
    if let max = s["maximum"], let n = number(v), let m = number(max), n > m {
      errors.append("\(path): \(n) > maximum \(m)")
    }
    if case .object(let members) = v {
      for key in s["required"]?.array?.compactMap(\.string) ?? [] where members[key] == nil {
        errors.append("\(path): missing required '\(key)'")
      }
      if let props = s["properties"]?.object {
        for (key, sub) in props {
          if let member = members[key] {
            check(member, sub, file: file, path: path + "." + key, errors: &errors, depth: depth + 1)
          }
        }
      }
    }
    if case .array(let elements) = v {
      if let m = s["maxItems"]?.int, elements.count > m { errors.append("\(path): more than \(m) items") }
      if let m = s["minItems"]?.int, elements.count < m { errors.append("\(path): fewer than \(m) items") }
      if let items = s["items"] {
        for (i, e) in elements.enumerated() {
          check(e, items, file: file, path: "\(path)[\(i)]", errors: &errors, depth: depth + 1)
        }
      }
    }
  }

  private func matchesType(_ v: SchemaJSON, _ t: String) -> Bool {
    switch (t, v) {
    case ("null", .null), ("boolean", .bool), ("integer", .int), ("number", .int), ("number", .double),
      ("string", .string), ("array", .array), ("object", .object):
      return true
    case ("integer", .double(let d)): return d.rounded() == d
    default: return false
    }
  }

  private func kind(_ v: SchemaJSON) -> String {
    switch v {
    case .null: "null"
    case .bool: "boolean"
    case .int: "integer"
    case .double: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  private func number(_ v: SchemaJSON) -> Double? {
    switch v {
    case .int(let i): Double(i)
    case .double(let d): d
    default: nil
    }
  }

  /// Resolves `file.json#/pointer` or `#/pointer` (in `file`, then in the fallback document).
  private func follow(_ ref: String, from file: String) -> (SchemaJSON, String)? {
    let parts = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
    let target = parts[0].isEmpty ? file : String(parts[0])
    let pointer = parts.count > 1 ? String(parts[1]) : ""
    if let doc = documents[target], let s = resolve(pointer, in: doc) { return (s, target) }
    if let doc = documents[fallbackDocument], let s = resolve(pointer, in: doc) {
      return (s, fallbackDocument)
    }
    return nil
  }

  private func resolve(_ pointer: String, in doc: SchemaJSON) -> SchemaJSON? {
    var node = doc
    for raw in pointer.split(separator: "/", omittingEmptySubsequences: true) {
      let key = String(raw.replacing("~1", with: "/").replacing("~0", with: "~"))
      if let next = node[key] {
        node = next
      } else if let i = Int(key), let next = node[i] {
        node = next
      } else {
        return nil
      }
    }
    return node
  }

  /// `YYYY-MM-DDTHH:MM:SS` with optional fraction and a `Z` or `±HH:MM` offset.
  static func looksLikeDateTime(_ s: String) -> Bool {
    let b = Array(s.utf8)
    func digits(_ r: Range<Int>) -> Bool {
      r.upperBound <= b.count && r.allSatisfy { b[$0] >= 48 && b[$0] <= 57 }
    }
    guard b.count >= 20, digits(0..<4), b[4] == 45, digits(5..<7), b[7] == 45, digits(8..<10),
      b[10] == 84 || b[10] == 116, digits(11..<13), b[13] == 58, digits(14..<16), b[16] == 58, digits(17..<19)
    else { return false }
    var i = 19
    if i < b.count && b[i] == 46 {
      i += 1
      while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }
    }
    if i == b.count - 1 && (b[i] == 90 || b[i] == 122) { return true }
    return i == b.count - 6 && (b[i] == 43 || b[i] == 45) && digits((i + 1)..<(i + 3)) && b[i + 3] == 58
      && digits((i + 4)..<(i + 6))
  }

  /// A scheme followed by `:` and something; the empty string GitHub sends for unset URLs also passes.
  static func looksLikeURI(_ s: String) -> Bool {
    if s.isEmpty { return true }
    guard let colon = s.firstIndex(of: ":"), colon != s.startIndex else { return false }
    let scheme = s[..<colon]
    guard let first = scheme.first, first.isLetter else { return false }
    return scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
      && s.index(after: colon) < s.endIndex
  }

  /// Reads and parses one JSON file.
  public static func loadJSON(path: String) throws(LoadError) -> SchemaJSON {
    let bytes = try readFile(path)
    do {
      return try SchemaJSON.parse(bytes)
    } catch {
      throw LoadError(description: "\(path): \(error)")
    }
  }

  private static func readFile(_ path: String) throws(LoadError) -> [UInt8] {
    guard let bytes = fileBytes(atPath: path) else { throw LoadError(description: "cannot read \(path)") }
    return bytes
  }

}
