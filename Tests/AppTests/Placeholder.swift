// Tests for AppTests land with their target.
