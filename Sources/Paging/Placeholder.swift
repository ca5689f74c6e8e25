// Placeholder until the Paging target lands.
