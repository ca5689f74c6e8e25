// Tests for MustacheTests land with their target.
