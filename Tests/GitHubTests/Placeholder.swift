// Tests for GitHubTests land with their target.
