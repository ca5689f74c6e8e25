// Placeholder until the Mustache target lands.
