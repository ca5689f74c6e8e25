// Tests for CurlClientTests land with their target.
