import Mustache
import TestSupport
import Testing

/// A view model answering a fixed set of names.
private final class Person: MustacheObject {
  let name: String
  let friend: Person?

  init(name: String, friend: Person? = nil) {
    self.name = name
    self.friend = friend
  }

  func value(for key: String) -> MustacheValue? {
    switch key {
    case "name": return .string(name)
    case "friend": return friend.map { .dynamic($0) }
    case "tags": return ["<a>", "b"]
    default: return nil
    }
  }
}

/// `.dynamic` objects behave as dictionary objects do: names, dotted names, sections, the context stack.
@Suite(.timeLimit(.minutes(2))) struct DynamicObjectTests {
  @Test func answersNamesAndDottedNamesEscaped() throws {
    let t = try Template("{{name}}|{{friend.name}}|{{{friend.name}}}|{{#tags}}[{{.}}]{{/tags}}")
    let out = t.render(.dynamic(Person(name: "Ann", friend: Person(name: "<Bo>"))))
    expectEqual(out, "Ann|&lt;Bo&gt;|<Bo>|[&lt;a&gt;][b]")
  }

  @Test func unansweredNamesFallThroughTheContextStack() throws {
    let t = try Template("{{#person}}{{name}} at {{site}}{{#friend}}, {{name}}{{/friend}}{{/person}}")
    let people: MustacheValue = ["site": "home", "person": .dynamic(Person(name: "Ann"))]
    expectEqual(t.render(people), "Ann at home")
    let pair: MustacheValue = [
      "site": "work", "person": .dynamic(Person(name: "Ann", friend: Person(name: "Cy"))),
    ]
    expectEqual(t.render(pair), "Ann at work, Cy")
  }

  @Test func isTruthyAndRendersEmptyOnItsOwn() throws {
    let t = try Template("{{#p}}T{{/p}}{{^p}}F{{/p}}[{{p}}]{{p.missing}}")
    expectEqual(t.render(["p": .dynamic(Person(name: "x"))]), "T[]")
    expectEqual(t.render(["p": [.dynamic(Person(name: "x")), .dynamic(Person(name: "y"))]]), "TT[]")
  }
}
