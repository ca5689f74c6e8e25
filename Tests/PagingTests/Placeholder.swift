// Tests for PagingTests land with their target.
