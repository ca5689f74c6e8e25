import Clocks
import Digests
import Encodings
import TestSupport
import Testing

@testable import HTTP

@Suite(.timeLimit(.minutes(2))) struct HTTPHeadersTests {
  @Test func lookupIgnoresCaseAndKeepsDuplicates() {
    var h: HTTPHeaders = ["Set-Cookie": "a=1", "content-type": "text/html"]
    h.add(name: "set-cookie", value: "b=2")
    expectEqual(h["Content-Type"], "text/html")
    expectEqual(h.values(for: "SET-COOKIE"), ["a=1", "b=2"])
    h.replaceOrAdd(name: "Set-Cookie", value: "c=3")
    expectEqual(h.values(for: "set-cookie"), ["c=3"])
  }

  @Test func tokensInCommaLists() {
    let h: HTTPHeaders = ["Connection": "keep-alive, Upgrade"]
    expectTrue(h.containsToken("upgrade", in: "connection"))
    expectTrue(!h.containsToken("close", in: "connection"))
    let spaced: HTTPHeaders = ["Vary": " Sec-Fetch-Mode ,\taccept-encoding\t", "vary": ",,"]
    expectTrue(spaced.containsToken("Accept-Encoding", in: "VARY"))
    expectTrue(spaced.containsToken("sec-fetch-mode", in: "vary"))
    expectTrue(!spaced.containsToken("Accept", in: "Vary"))
    expectTrue(!spaced.containsToken("Accept-Encoding", in: "Connection"))
  }

  @Test func caseFoldingTouchesLettersOnly() {
    expectTrue(HTTPHeaders.equalsIgnoringCase("Content-Type", "cONTENT-tYPE"))
    expectTrue(!HTTPHeaders.equalsIgnoringCase("Content-Type", "Content-Typ"))
    expectTrue(!HTTPHeaders.equalsIgnoringCase("a@", "a`"))
    expectTrue(!HTTPHeaders.equalsIgnoringCase("[", "{"))
    expectTrue(!HTTPHeaders.equalsIgnoringCase("Ä", "ä"))
    expectTrue(HTTPHeaders.equalsIgnoringCase("", ""))
    let names = (0...255).map { UInt8($0) }
    for x in names {
      for y in names {
        let fold = { (b: UInt8) in b >= 65 && b <= 90 ? b | 0x20 : b }
        let same = [x].withUnsafeBufferPointer { a in
          [y].withUnsafeBufferPointer { b in HTTPHeaders.equalsIgnoringCase(a, b) }
        }
        expectEqual(same, (fold(x) == fold(y)), "\(x) \(y)")
      }
    }
  }

  @Test func queryDecoding() {
    let r = HTTPRequest(method: .get, target: "/?q=swift+lang%3A%22x%22&sort=stars&bad=%zz")
    expectEqual(r.path, "/")
    expectEqual(r.queryValue("q"), "swift lang:\"x\"")
    expectEqual(r.queryValue("sort"), "stars")
    expectEqual(r.queryValue("bad"), nil)
    expectEqual(URLEncoding.percentEncode("a b/ü"), "a%20b%2F%C3%BC")
  }

  @Test(arguments: [
    ("", ""), ("swift", "swift"), ("stars:>=0 language:c++", "stars%3A%3E%3D0%20language%3Ac%2B%2B"),
    ("ünï/😀?&=#%+", "%C3%BCn%C3%AF%2F%F0%9F%98%80%3F%26%3D%23%25%2B"), ("a~b-c.d_e", "a~b-c.d_e"),
  ])
  func percentEncodingFormsAgree(text: String, encoded: String) {
    expectEqual(URLEncoding.percentEncode(text), encoded)
    var emitted: [UInt8] = []
    URLEncoding.percentEncode(text) { emitted.append($0) }
    expectEqual(emitted, Array(encoded.utf8))
    expectEqual(URLEncoding.isUnreserved(text), (text == encoded))
    expectEqual(URLEncoding.formatQuery([("q", text), ("after", "20")]), "q=\(encoded)&after=20")
    expectEqual(URLEncoding.percentDecode(encoded), text)
  }

  @Test func trimmingKeepsTheInside() {
    expectEqual(" \t a b \t".trimmingSpaces, "a b")
    expectEqual("\u{00A0}\n x y \r\n".trimmingSpaces, "\u{00A0}\n x y \r\n")
    expectEqual("\u{00A0}\n x y \r\n".trimmingWhitespace, "x y")
    expectTrue("   ".trimmingWhitespace.isEmpty && "".trimmingSpaces.isEmpty)
    expectTrue("x".trimming { $0 == "x" }.isEmpty)
    expectTrue("swift".trimmingWhitespace == "swift" && "a \t b".trimmingWhitespace == "a \t b")
    expectTrue("x\u{0085}".trimmingWhitespace == "x" && "\u{2003}é ".trimmingWhitespace == "é")
  }

  @Test func queryItemsDecodeNamesAndValuesAndSkipEmptyPairs() {
    let items = URLEncoding.parseQuery("q=a+b%21&&%71=x&flag&=v&bad=%zz&after=20&")
    expectEqual(items.map(\.name), ["q", "q", "flag", "", "after"])
    expectEqual(items.map(\.value), ["a b!", "x", "", "v", "20"])
    var raw: [String] = []
    URLEncoding.forEachQueryItem("a=1&&b&c=%41=") {
      let (name, value) = ($0.withUnsafeBufferPointer(Array.init), $1.withUnsafeBufferPointer(Array.init))
      raw.append(String(decoding: name, as: UTF8.self) + "|" + String(decoding: value, as: UTF8.self))
    }
    expectEqual(raw, ["a|1", "b|", "c|%41="])
    expectEqual(URLEncoding.percentDecode("a+b", plusAsSpace: false), "a+b")
    expectEqual(URLEncoding.percentDecode("ünï", plusAsSpace: true), "ünï")
    expectTrue(URLEncoding.percentDecode("%FF") == nil && URLEncoding.percentDecode("%4") == nil)
  }

  @Test func durationNumbersTruncateAndClamp() {
    expectEqual(Duration.milliseconds(1500).wholeMilliseconds, 1500)
    expectEqual(Duration.microseconds(1999).wholeMilliseconds, 1)
    expectEqual(Duration.microseconds(1999).wholeMicroseconds, 1999)
    expectEqual(Duration.nanoseconds(999).wholeMicroseconds, 0)
    expectEqual(Duration.seconds(-3).wholeMilliseconds, 0)
    expectEqual(Duration.seconds(Int64.max).wholeMilliseconds, Int.max / 4)
    expectEqual(Duration.seconds(Int64.max / 1000).wholeMicroseconds, Int.max / 4)
    expectEqual(Duration.milliseconds(2_250).secondsValue, 2.25)
  }

  @Test func fnv1aMatchesTheReferenceValues() {
    expectEqual(FNV1a.hash([UInt8]()), 0xcbf2_9ce4_8422_2325)
    expectEqual(FNV1a.hash(Array("a".utf8)), 0xaf63_dc4c_8601_ec8c)
    expectEqual(FNV1a.hash(Array("foobar".utf8)), 0x8594_4171_f739_67e8)
  }
}

@Suite(.timeLimit(.minutes(2))) struct HTTPTokenTests {
  @Test func tokensAreRunsOfTchars() {
    expectTrue(HTTPToken.isToken("GET"))
    expectTrue(HTTPToken.isToken("X-Custom_1.2~!#$%&'*+^`|"))
    expectTrue(!HTTPToken.isToken(""))
    expectTrue(!HTTPToken.isToken("a b"))
    expectTrue(!HTTPToken.isToken("a:b"))
    expectTrue(!HTTPToken.isToken("é"))
    let tchars = (0...255).filter { HTTPToken.isTokenChar(UInt8($0)) }
    expectEqual(tchars.count, 10 + 26 + 26 + 15)
  }
}
