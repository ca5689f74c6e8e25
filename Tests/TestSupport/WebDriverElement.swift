/// A reference to a DOM element inside one WebDriver session.
public struct WebDriverElement: Sendable, Hashable {
  /// The W3C web element identifier key.
  public static let identifierKey = "element-6066-11e4-a52e-4f735466cecf"

  /// The opaque element id chromedriver assigned.
  public let id: String

  /// Wraps an id from a find command.
  public init(id: String) { self.id = id }

  /// Reads an element reference from a command or script result.
  public init?(json: WebDriverJSON) {
    guard let id = json[Self.identifierKey]?.string else { return nil }
    self.id = id
  }

  /// The reference as a script argument (the script receives the DOM element).
  public var json: WebDriverJSON { [Self.identifierKey: .string(id)] }
}

/// W3C WebDriver key codes (Private Use Area characters) for sendKeys and key actions.
public enum WebDriverKey {
  /// Page Up.
  public static let pageUp = "\u{E00E}"
  /// Page Down.
  public static let pageDown = "\u{E00F}"
  /// End.
  public static let end = "\u{E010}"
  /// Home.
  public static let home = "\u{E011}"
  /// Enter.
  public static let enter = "\u{E007}"
  /// Tab.
  public static let tab = "\u{E004}"
  /// Arrow down.
  public static let arrowDown = "\u{E015}"
  /// Control (a modifier: use it in `pressChord`).
  public static let control = "\u{E009}"
}
