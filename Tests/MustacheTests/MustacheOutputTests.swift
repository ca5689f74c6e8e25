import Mustache
import TestSupport
import Testing

/// The output's own writers: integers written in place, escaping scanned by words, short copies.
@Suite(.timeLimit(.minutes(2))) struct MustacheOutputTests {
  @Test(arguments: [
    0, 7, 9, 10, 42, 99, 100, 101, 999, 1_000, 9_999, 10_000, 99_999, 100_000, 123_456, 1_000_000,
    36_554_090, 9_999_999_999, 10_000_000_000, 1_234_567_890_123_456_789, Int.max, -1, -9, -10, -100,
    -36_588, Int.min + 1, Int.min,
  ])
  func integersAreWrittenInDecimal(value: Int) throws {
    let template = try Template("[{{n}}]")
    expectEqual(template.render(["n": .int(value)]), "[\(value)]")
  }

  @Test func everyPowerOfTenAndItsNeighboursIsWrittenInDecimal() throws {
    let template = try Template("{{n}}")
    var power = 1
    for _ in 0..<19 {
      for value in [power - 1, power, power + 1, -power] {
        expectEqual(template.render(["n": .int(value)]), String(value))
      }
      power = power &* 10
    }
  }

  /// Each ASCII byte and a few multi-byte characters at every offset of the first three 8-byte words
  /// of a text: escaped exactly when it is one of the five characters, wherever it falls.
  @Test func everyCharacterAtEveryOffsetEscapesAsTheReference() throws {
    let template = try Template("{{v}}")
    let characters =
      (1...127).map { Character(Unicode.Scalar(UInt8($0))) } + ["é", "€", "𝄞", "\u{A0}"]
    for character in characters {
      for offset in 0..<24 {
        for length in [offset + 1, offset + 9, 26] where length > offset {
          var text = String(repeating: "a", count: offset) + String(character)
          text += String(repeating: "b", count: max(0, length - offset - 1))
          expectEqual(
            template.render(["v": .string(text)]), referenceEscape(text), "\(text.debugDescription)")
        }
      }
    }
  }

  /// Text runs and raw values of every short length (copied without `memmove`) and some longer ones
  /// arrive whole.
  @Test func runsOfEveryLengthAreCopiedWhole() throws {
    let alphabet = Array(
      String(repeating: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", count: 3))
    for length in 0..<alphabet.count {
      let run = String(alphabet[0..<length])
      let template = try Template(run + "|{{{v}}}|{{v}}|" + run)
      expectEqual(template.render(["v": .string(run)]), "\(run)|\(run)|\(run)|\(run)")
    }
  }
}
