// Tests for SocketsTests land with their target.
