// Placeholder until the App target lands.
