// Placeholder until the GitHub target lands.
