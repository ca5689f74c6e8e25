// Placeholder until the Sockets target lands.
