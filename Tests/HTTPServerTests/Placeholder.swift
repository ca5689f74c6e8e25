// Tests for HTTPServerTests land with their target.
