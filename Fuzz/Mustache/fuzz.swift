// The Mustache target's parser and renderer (internal, hence the testable import) on arbitrary
// templates.
@testable import Mustache

/// Data with every value kind, so fuzzed templates reach every render path.
let fuzzData: MustacheValue = [
  "a": [["x": "1", "y": ["z": true]], ["x": 2.5], "str", [], nil],
  "b": true, "c": "<&\"'>", "d": ["x": ["y": 1]], "e": [], "f": .html("<b>"), "n": nil, "x": 0,
  "y": false, "s": "", "list": [1, 2, 3],
]

/// Small limits keep every input fast even with recursive partials.
let fuzzLimits = RenderLimits(maxDepth: 64, maxNodes: 200_000, maxBytes: 1 << 20)

/// Names given to the NUL-separated parts of an input when it is loaded as a library.
let fuzzNames = ["main", "a", "b", "c"]

/// libFuzzer entry: the input is parsed as one template and rendered; if it has NUL bytes, its parts
/// become a library (main, a, b, c) and every template in it is rendered.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data, size > 0 else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  var out: [UInt8] = []
  do {
    let template = try Template(text)
    _ = template.render(fuzzData, into: &out, partials: nil, limits: fuzzLimits)
  } catch {
    precondition(error.line >= 1 && error.column >= 1, "error without a place: \(error)")
  }
  let parts = text.split(separator: "\0", maxSplits: fuzzNames.count - 1, omittingEmptySubsequences: false)
  guard parts.count > 1 else { return 0 }
  var sources: [String: String] = [:]
  for (i, part) in parts.enumerated() { sources[fuzzNames[i]] = String(part) }
  if let library = try? TemplateLibrary(templates: sources) {
    for name in library.names {
      out.removeAll(keepingCapacity: true)
      _ = library.template(named: name)?.render(fuzzData, into: &out, partials: library, limits: fuzzLimits)
    }
  }
  return 0
}
