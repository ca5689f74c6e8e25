import Mustache

/// A view model that templates render, declaring which templates (by name: the path under
/// `Templates/` without `.mustache`) render it and the names they may read. Startup checks every
/// template against the vocabulary of the one view that claims it (`Routes.vocabulary(of:)`); a
/// template that no view claims stops startup, naming it.
///
/// ```swift
/// enum StarsView: TemplateView {
///   static let templates: Set<String> = ["partials/stars", "partials/stars-batch"]
///   static let vocabulary = MustacheSchema("the stars view", names: templateNames)
/// }
/// ```
protocol TemplateView {
  /// The templates that render this view: the top-level ones and every partial they call.
  static var templates: Set<String> { get }
  /// The names those templates may read.
  static var vocabulary: MustacheSchema { get }
}
