/// The names a kind of row answers, numbered in order: a template bound to the schema reads `names[i]`
/// as field `i`. Dotted names (`owner.login`) are names of their own. A class, so that a bound
/// template and the rows it is given compare by identity.
public final class MustacheSchema: Sendable {
  /// What the schema describes, for error messages (`card`).
  public let name: String
  /// Field names; a field's number is its index.
  public let names: [String]
  private let numbers: [String: Int]

  /// A schema with `names` numbered from 0 in order (a repeated name keeps its first number).
  public init(_ name: String, names: [String]) {
    self.name = name
    self.names = names
    var numbers: [String: Int] = [:]
    for (number, field) in names.enumerated() where numbers[field] == nil { numbers[field] = number }
    self.numbers = numbers
  }

  /// The number of the field called `name`, or nil.
  public func field(named name: String) -> Int? { numbers[name] }
}

/// The elements of a list, all of one kind, read by templates bound to their `schema` when the library
/// loaded (`TemplateLibrary(directory:bindings:)`). A bound template names fields by number, so a
/// render allocates nothing per row and compares no names; rows write their fields straight into the
/// output.
///
/// A section over `MustacheValue.rows` renders once per row. Only templates bound to the same schema
/// read a row's fields; to any other template a row is an empty context.
public protocol MustacheRows: AnyObject, Sendable {
  /// The fields each row answers.
  var schema: MustacheSchema { get }
  /// How many rows there are.
  var count: Int { get }
  /// How many times a section over `field` of `row` renders: 0 when the field is absent, false or
  /// empty; a list field's element count; 1 for any other value.
  func count(of field: Int, row: Int) -> Int
  /// Writes `field` of `row` (for a list field, its element `element`; otherwise `element` is 0).
  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput)
}
