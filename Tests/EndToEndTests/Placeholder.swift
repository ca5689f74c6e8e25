// Tests for EndToEndTests land with their target.
