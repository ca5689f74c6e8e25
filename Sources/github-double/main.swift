print("github-double: not yet implemented")
