// Placeholder until the GitHubDouble target lands.
