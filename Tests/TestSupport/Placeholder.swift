// Test helpers shared by test targets.
