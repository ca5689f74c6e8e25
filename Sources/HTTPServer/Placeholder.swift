// Placeholder until the HTTPServer target lands.
