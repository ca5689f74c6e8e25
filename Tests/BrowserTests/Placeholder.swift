// Tests for BrowserTests land with their target.
