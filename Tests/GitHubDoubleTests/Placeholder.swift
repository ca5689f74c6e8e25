// Tests for GitHubDoubleTests land with their target.
